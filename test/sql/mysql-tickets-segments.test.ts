import { install, mysql2Executor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { queryState } from '../support/state-sql.js';
import { mysqlUrl, withDatabase } from '../support/targets.js';

async function tickets(executor: SqlExecutor, name: string, count: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const [row] = await executor.query<{ t: string }>('select sheaf_next_ticket(?) as t', [name]);
    out.push(BigInt(String(row?.t)));
  }
  return out;
}

describeTargets(
  'tickets, segments and worker leases on MySQL/MariaDB',
  (db) => {
    // The second ticket "server": a database of its own on the same server.
    const secondName = `sheaf_t2_${Date.now().toString(36)}`;
    let second: mysql.Pool | undefined;
    let secondPassed = false;

    beforeAll(async () => {
      await install(db().executor);
      const admin = await mysql.createConnection({ uri: mysqlUrl });
      await admin.query(`create database ${secondName}`);
      await admin.end();
      second = mysql.createPool({ uri: withDatabase(mysqlUrl, secondName), connectionLimit: 16 });
      await install(mysql2Executor(second));
    });

    afterAll(async () => {
      await second?.end();
      if (!secondPassed) return;
      const admin = await mysql.createConnection({ uri: mysqlUrl });
      await admin.query(`drop database if exists ${secondName}`);
      await admin.query(`drop database if exists sheaf_${secondName}`);
      await admin.end();
    });

    it('two ticket servers, step 2 at offsets 1 and 2, interleave without collision under 16 clients', async () => {
      const one = db().executor;
      const two = mysql2Executor(second as mysql.Pool);
      await queryState(one, "call {state}.sheaf_create_ticket('orders', 2, 1)");
      await queryState(two, "call {state}.sheaf_create_ticket('orders', 2, 2)");
      const sessions = await db().sessions(8);
      const results = await Promise.all([
        ...sessions.map((session) => tickets(session, 'orders', 300)),
        ...Array.from({ length: 8 }, () => two.session((session) => tickets(session, 'orders', 300))),
      ]);
      const odd = results.slice(0, 8).flat();
      const even = results.slice(8).flat();
      expect(odd.every((t) => t % 2n === 1n)).toBe(true);
      expect(even.every((t) => t % 2n === 0n)).toBe(true);
      const all = [...odd, ...even];
      expect(new Set(all).size).toBe(all.length);
      for (const list of results)
        for (let i = 1; i < list.length; i++) expect((list[i] as bigint) > (list[i - 1] as bigint)).toBe(true);
      secondPassed = true;
    });

    it('hands out offset, offset + step, … on a quiet server', async () => {
      await queryState(db().executor, "call {state}.sheaf_create_ticket('plain', 3, 2)");
      const got = await tickets(db().executor, 'plain', 3);
      expect(got[1]! - got[0]!).toBe(3n);
      expect((got[0]! - 2n) % 3n).toBe(0n);
    });

    it('refuses unknown tickets, taken names and bad steps', async () => {
      const sql = db().executor;
      await expectSheafRejection(sql.query("select sheaf_next_ticket('nope')"), 'UNKNOWN_TICKET', "'nope'");
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_ticket('plain', 1, 1)"),
        'NAME_TAKEN',
        "'plain'",
      );
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_ticket('x', 2, 3)"),
        'INVALID_ARGUMENT',
        'offset 3',
      );
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_ticket('x', 0, 1)"),
        'INVALID_ARGUMENT',
        'step 0',
      );
    });

    it('8 sessions allocating segments never overlap', async () => {
      await queryState(db().executor, "insert into {state}.sheaf_segments (biz_tag, step) values ('orders', 100)");
      const sessions = await db().sessions(8);
      const ranges = (
        await Promise.all(
          sessions.map(async (session, index) => {
            const got: [bigint, bigint][] = [];
            for (let i = 0; i < 50; i++) {
              const [row] = await session.query<{ first_id: string; last_id: string }>(
                'call sheaf_alloc_segment(?, ?)',
                ['orders', index % 2 === 0 ? null : 7],
              );
              got.push([BigInt(String(row?.first_id)), BigInt(String(row?.last_id))]);
            }
            return got;
          }),
        )
      )
        .flat()
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
      expect(ranges[0]?.[0]).toBe(1n);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.[0]).toBe((ranges[i - 1]?.[1] as bigint) + 1n);
    });

    it('refuses unknown and exhausted segments', async () => {
      const sql = db().executor;
      await expectSheafRejection(sql.query("call sheaf_alloc_segment('nope', null)"), 'UNKNOWN_SEGMENT', "'nope'");
      await queryState(
        sql,
        "insert into {state}.sheaf_segments (biz_tag, max_id, step) values ('full', 9223372036854775800, 10)",
      );
      await expectSheafRejection(sql.query("call sheaf_alloc_segment('full', null)"), 'SEGMENT_EXHAUSTED', "'full'");
      await expectSheafRejection(sql.query("call sheaf_alloc_segment('orders', 0)"), 'INVALID_ARGUMENT');
    });

    it('leases the lowest free worker id, reuses expired ones and fences with tokens', async () => {
      const sql = db().executor;
      type Lease = { worker_id: number; lease_token: string; last_timestamp_ms: string };
      const lease = async (ms: number, max = 3) =>
        (await sql.query<Lease>('call sheaf_lease_worker(?, ?, ?)', ['t', ms, max]))[0]!;
      const beat = (id: number, token: string, last: number) =>
        sql.query<{ e: string }>('select sheaf_heartbeat_worker(?, ?, ?, 60000) as e', [id, token, last]);
      // Worker id 0 is the shard of this database (installed with shard 0, SQL version 6).
      const a = await lease(60_000);
      const b = await lease(1);
      expect([a.worker_id, b.worker_id]).toEqual([1, 2]);
      await beat(1, a.lease_token, 50);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expectSheafRejection(beat(2, b.lease_token, 5), 'LEASE_LOST', 'worker 2', 'expired at');
      const c = await lease(60_000);
      expect(c.worker_id).toBe(2);
      expect(c.lease_token).not.toBe(b.lease_token);
      await expectSheafRejection(beat(2, b.lease_token, 5), 'LEASE_LOST', "now leased by 't'");
      const [renewed] = await beat(2, c.lease_token, 70);
      expect(Number(renewed!.e)).toBeGreaterThan(Date.now() + 50_000);
      // The stored timestamp only grows; release keeps it for the next holder.
      await beat(2, c.lease_token, 10);
      const release = (id: number, token: string) =>
        sql.query<{ ok: unknown }>('select sheaf_release_worker(?, ?, 60) as ok', [id, token]);
      expect(Number((await release(2, c.lease_token))[0]!.ok)).toBe(1);
      expect(Number((await release(2, c.lease_token))[0]!.ok)).toBe(0);
      const d = await lease(60_000, 2);
      expect([d.worker_id, Number(d.last_timestamp_ms)]).toEqual([2, 70]);
      await expectSheafRejection(lease(60_000, 2), 'WORKERS_EXHAUSTED', 'all 3 worker ids from 0 to 2 are leased');
      await expectSheafRejection(lease(0), 'INVALID_ARGUMENT', 'lease_ms');
      await expectSheafRejection(sql.query("call sheaf_lease_worker('', 1000, 1)"), 'INVALID_ARGUMENT', 'holder');
    });

    it('16 sessions leasing at once never get the same worker id', async () => {
      const sql = db().executor;
      // Every value free, the database's own too (the test's own state): truncate, not delete, whose
      // delete-marked rows make concurrent inserts of one key deadlock until purge runs.
      await queryState(sql, 'truncate table {state}.sheaf_workers');
      const sessions = await db().sessions(16);
      const got = await Promise.all(
        sessions.map(async (session) => {
          const ids: number[] = [];
          for (let i = 0; i < 4; i++) {
            const [row] = await session.query<{ worker_id: number }>('call sheaf_lease_worker(?, ?, ?)', [
              's',
              60_000,
              63,
            ]);
            ids.push(Number(row!.worker_id));
          }
          return ids;
        }),
      );
      expect(got.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 64 }, (_, i) => i));
      await expectSheafRejection(sql.query('call sheaf_lease_worker(?, ?, ?)', ['s', 60_000, 63]), 'WORKERS_EXHAUSTED');
    });

    it('creates tickets and segments idempotently', async () => {
      const sql = db().executor;
      await queryState(sql, "call {state}.sheaf_create_ticket('again', 2, 1)");
      await queryState(sql, "call {state}.sheaf_create_ticket('again', 2, 1)");
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_ticket('again', 2, 2)"),
        'NAME_TAKEN',
        'offset 1',
      );
      await queryState(sql, "call {state}.sheaf_create_segment('again', 10, 0, 'first')");
      await queryState(sql, "call {state}.sheaf_create_segment('again', 10, 0, null)");
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_segment('again', 20, 0, null)"),
        'NAME_TAKEN',
        'step 10',
      );
      await expectSheafRejection(
        queryState(sql, "call {state}.sheaf_create_segment('x', 0, 0, null)"),
        'INVALID_ARGUMENT',
        'step',
      );
      const [range] = await sql.query<{ first_id: string; last_id: string }>("call sheaf_alloc_segment('again', null)");
      expect(range).toEqual({ first_id: '1', last_id: '10' });
    });
  },
  { only: ['mariadb'] },
);
