import { install, isSheafError, type SqlExecutor } from '@sheaf/core';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';

interface Lease {
  workerId: number;
  token: string;
  lastTimestampMs: bigint;
}

async function lease(executor: SqlExecutor, holder: unknown, leaseMs: unknown, maxWorker: unknown): Promise<Lease> {
  const rows = await executor.query<{ worker_id: number; lease_token: string; last_timestamp_ms: string }>(
    'select worker_id, lease_token::text, last_timestamp_ms::text from sheaf.lease_worker($1, $2, $3)',
    [holder, leaseMs, maxWorker],
  );
  expect(rows).toHaveLength(1);
  const [row] = rows;
  return { workerId: row!.worker_id, token: row!.lease_token, lastTimestampMs: BigInt(row!.last_timestamp_ms) };
}

async function heartbeat(executor: SqlExecutor, held: Lease, lastTimestampMs: unknown, leaseMs: unknown = 10_000) {
  const [row] = await executor.query<{ expires_at: Date }>(
    'select sheaf.heartbeat_worker($1, $2::uuid, $3::bigint, $4) as expires_at',
    [held.workerId, held.token, lastTimestampMs, leaseMs],
  );
  return row!.expires_at;
}

async function release(executor: SqlExecutor, held: Lease, lastTimestampMs: unknown = null): Promise<boolean> {
  const [row] = await executor.query<{ released: boolean }>(
    'select sheaf.release_worker($1, $2::uuid, $3::bigint) as released',
    [held.workerId, held.token, lastTimestampMs],
  );
  return row!.released;
}

async function storedTimestamp(executor: SqlExecutor, workerId: number): Promise<bigint> {
  const [row] = await executor.query<{ ms: string }>(
    'select last_timestamp_ms::text as ms from sheaf.workers where worker_id = $1',
    [workerId],
  );
  return BigInt(row!.ms);
}

/** Waits until the database's clock has passed the lease of `workerId`. */
async function waitForExpiry(executor: SqlExecutor, workerId: number): Promise<void> {
  for (;;) {
    const [row] = await executor.query<{ expired: boolean }>(
      'select expires_at < clock_timestamp() as expired from sheaf.workers where worker_id = $1',
      [workerId],
    );
    if (row?.expired) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describeTargets(
  'sheaf.lease_worker, heartbeat_worker and release_worker',
  (db) => {
    const sql = () => db().executor;

    // The database's own shard is a value of the id space too: kept out of the range leased here.
    beforeAll(async () => {
      await install(sql(), { shard: 4000 });
    });
    beforeEach(async () => {
      await sql().query("delete from sheaf.workers where kind = 'worker'");
    });

    it('leases the lowest free ids with fresh tokens, then raises WORKERS_EXHAUSTED', async () => {
      const leases = [];
      for (const holder of ['a', 'b', 'c']) leases.push(await lease(sql(), holder, 10_000, 2));
      expect(leases.map((held) => held.workerId)).toEqual([0, 1, 2]);
      expect(new Set(leases.map((held) => held.token)).size).toBe(3);
      for (const held of leases) expect(held.lastTimestampMs).toBe(0n);
      await expectSheafRejection(
        lease(sql(), 'd', 10_000, 2),
        'WORKERS_EXHAUSTED',
        "all 3 worker ids from 0 to 2 are leased or held by databases; holder 'd' got none",
      );
      expect((await lease(sql(), 'd', 10_000, 3)).workerId).toBe(3);
    });

    it('fills the lowest gap first: a released id, then the lowest id without a row', async () => {
      const held = [];
      for (let i = 0; i < 4; i++) held.push(await lease(sql(), `h${i}`, 10_000, 9));
      expect(await release(sql(), held[1]!)).toBe(true);
      expect(await release(sql(), held[2]!)).toBe(true);
      expect((await lease(sql(), 'x', 10_000, 9)).workerId).toBe(1);
      expect((await lease(sql(), 'y', 10_000, 9)).workerId).toBe(2);
      expect((await lease(sql(), 'z', 10_000, 9)).workerId).toBe(4);
      await sql().query("insert into sheaf.workers (worker_id, holder) values (7, 'outside the range')");
      expect((await lease(sql(), 'w', 10_000, 6)).workerId).toBe(5);
    });

    it('heartbeats extend the lease and keep the highest last_timestamp_ms, which the next holder receives', async () => {
      const held = await lease(sql(), 'a', 1_000, 0);
      const expiresAt = await heartbeat(sql(), held, 500, 60_000);
      expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
      expect(await storedTimestamp(sql(), 0)).toBe(500n);
      await heartbeat(sql(), held, 300);
      expect(await storedTimestamp(sql(), 0)).toBe(500n);
      await heartbeat(sql(), held, '1700000000123');
      expect(await storedTimestamp(sql(), 0)).toBe(1700000000123n);
      expect(await release(sql(), held, '1700000000456')).toBe(true);
      const next = await lease(sql(), 'b', 1_000, 0);
      expect(next).toMatchObject({ workerId: 0, lastTimestampMs: 1700000000456n });
      expect(next.token).not.toBe(held.token);
      expect(await release(sql(), next, 5)).toBe(true);
      expect(await storedTimestamp(sql(), 0)).toBe(1700000000456n);
    });

    it('gives an expired lease to the next holder with a new token and fences the old holder (LEASE_LOST)', async () => {
      const old = await lease(sql(), 'old', 10_000, 3);
      // A heartbeat may also shorten the lease: down to 20 ms here.
      await heartbeat(sql(), old, 42, 20);
      await waitForExpiry(sql(), old.workerId);
      const taken = await lease(sql(), 'new', 10_000, 3);
      expect(taken).toMatchObject({ workerId: old.workerId, lastTimestampMs: 42n });
      expect(taken.token).not.toBe(old.token);
      await expectSheafRejection(
        heartbeat(sql(), old, 99),
        'LEASE_LOST',
        `worker ${old.workerId}: lease ${old.token} was lost; the worker id is now leased by 'new'`,
      );
      expect(await release(sql(), old, 99)).toBe(false);
      expect(await storedTimestamp(sql(), old.workerId)).toBe(42n);
      await heartbeat(sql(), taken, 43);
      expect(await release(sql(), taken)).toBe(true);
      await expectSheafRejection(heartbeat(sql(), taken, 44), 'LEASE_LOST', 'the worker id is now free');
    });

    it('refuses a heartbeat after expiry even when nobody took the id over', async () => {
      const held = await lease(sql(), 'slow', 20, 0);
      await waitForExpiry(sql(), held.workerId);
      await expectSheafRejection(heartbeat(sql(), held, 1), 'LEASE_LOST', `worker 0: lease ${held.token} expired at`);
      expect(await storedTimestamp(sql(), 0)).toBe(0n);
    });

    it('refuses bad arguments with INVALID_ARGUMENT naming the value', async () => {
      const leaseCases: [unknown, unknown, unknown, string][] = [
        [null, 1000, 7, 'worker holder must be non-empty text, not null'],
        ['', 1000, 7, "worker holder must be non-empty text, not ''"],
        ['h', 0, 7, 'lease_ms must be at least 1, not 0'],
        ['h', null, 7, 'lease_ms must be at least 1, not null'],
        ['h', 1000, -1, 'max_worker must be 0 or more, not -1'],
        ['h', 1000, null, 'max_worker must be 0 or more, not null'],
      ];
      for (const [holder, leaseMs, maxWorker, message] of leaseCases) {
        await expectSheafRejection(lease(sql(), holder, leaseMs, maxWorker), 'INVALID_ARGUMENT', message);
      }
      const held = await lease(sql(), 'h', 10_000, 7);
      await expectSheafRejection(
        heartbeat(sql(), held, -1),
        'INVALID_ARGUMENT',
        'worker 0: last_timestamp_ms must be 0 or more, not -1',
      );
      await expectSheafRejection(heartbeat(sql(), held, null), 'INVALID_ARGUMENT', 'not null');
      await expectSheafRejection(
        heartbeat(sql(), held, 1, 0),
        'INVALID_ARGUMENT',
        'lease_ms must be at least 1, not 0',
      );
      await expectSheafRejection(
        heartbeat(sql(), { ...held, token: null as unknown as string }, 1),
        'INVALID_ARGUMENT',
        'heartbeat needs a worker_id and a lease_token, not 0 and null',
      );
      await expectSheafRejection(release(sql(), held, -7), 'INVALID_ARGUMENT', 'not -7');
      await expectSheafRejection(
        release(sql(), { ...held, workerId: null as unknown as number }),
        'INVALID_ARGUMENT',
        'release needs a worker_id and a lease_token, not null and',
      );
      expect(await release(sql(), held)).toBe(true);
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'worker leases under concurrency',
  (db) => {
    const open = (count: number) => db().sessions(count);

    beforeAll(async () => {
      await install(db().executor, { shard: 4000 });
    });
    beforeEach(async () => {
      await db().executor.query("delete from sheaf.workers where kind = 'worker'");
    });

    it('16 sessions leasing at once with max_worker 7: ids 0…7 once each, the other 8 get WORKERS_EXHAUSTED', async () => {
      const sessions = await open(16);
      const outcomes = await Promise.allSettled(
        sessions.map((session, index) => lease(session, `holder-${index}`, 60_000, 7)),
      );
      const ids = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.workerId] : []));
      expect(ids.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(refused).toHaveLength(8);
      for (const reason of refused) expect(isSheafError(reason, 'WORKERS_EXHAUSTED'), String(reason)).toBe(true);
    });

    it('8 sessions leasing and releasing 4 ids in a loop: no id is ever held twice', async () => {
      const sessions = await open(8);
      const holders = new Map<number, number>();
      let leased = 0;
      await Promise.all(
        sessions.map(async (session, index) => {
          for (let round = 0; round < 40; round++) {
            let held: Lease;
            try {
              held = await lease(session, `s${index}`, 60_000, 3);
            } catch (error) {
              if (isSheafError(error, 'WORKERS_EXHAUSTED')) continue;
              throw error;
            }
            const other = holders.get(held.workerId);
            if (other !== undefined)
              throw new Error(`worker ${held.workerId} leased to s${index} while s${other} holds it`);
            holders.set(held.workerId, index);
            leased++;
            await heartbeat(session, held, round);
            // Forget the id before releasing it: from the release on, another session may take it.
            holders.delete(held.workerId);
            expect(await release(session, held)).toBe(true);
          }
        }),
      );
      expect(leased).toBeGreaterThan(40);
    });
  },
  { only: ['postgres'] },
);
