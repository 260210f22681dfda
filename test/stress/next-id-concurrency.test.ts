import { decodeId, install } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';
import { watchLockWaits } from '../support/lock-waits.js';
import { expectDistinct, expectIncreasing, idsOf, pgClock } from '../support/pg-clock.js';

// sheaf.next_id() under many sessions at once. PGlite is a single connection: server only.
describeGeneratorPaths(
  'sheaf.next_id under concurrency',
  (db, target, path) => {
    const open = (count: number) => db().sessions(count);

    beforeAll(async () => {
      await install(db().executor, { shard: 3, testClock: true, ...path.install(target) });
      await expectGeneratorPath(db().executor, path);
    });

    /** Earlier tests leave the state ahead of the clock: start a clock test from the real clock. */
    const resetState = () => db().executor.query('select sheaf._test_reset()');

    it('16 sessions × 100,000 ids: no duplicate, increasing within each session', async () => {
      const sessions = await open(16);
      // Four ways to ask, so single calls, small batches, large batches and inserts interleave.
      const forms = [
        'select sheaf.next_id() as id from generate_series(1, 1000)',
        'select sheaf.next_ids(40) as id from generate_series(1, 25)',
        'select sheaf.next_ids(1000) as id',
        'insert into stress_ids (n) select g from generate_series(1, 1000) g returning id',
      ];
      await db().executor.query('create unlogged table stress_ids (id bigint default sheaf.next_id(), n integer)');
      const perSession = await Promise.all(
        sessions.map(async (session, index) => {
          const ids: bigint[] = [];
          for (let round = 0; round < 100; round++) {
            ids.push(...idsOf(await session.query<{ id: unknown }>(forms[(index + round) % forms.length]!)));
          }
          return ids;
        }),
      );
      for (const [index, ids] of perSession.entries()) expectIncreasing(ids, `session ${index}`);
      expect(expectDistinct(perSession.flat())).toBe(1_600_000);
      // 30 to 65 s on 2 shared cores; a run that times out leaves its sessions busy for the next test.
    }, 180_000);

    it('8 sessions asking 5,000 ids each within one frozen millisecond borrow without duplicates', async () => {
      const sessions = await open(8);
      const frozen = Date.now();
      await Promise.all(sessions.map((session) => pgClock.set(session, frozen)));
      // Reset at the frozen clock, so the first block is the frozen millisecond itself.
      await sessions[0]!.query('select sheaf._test_reset()');
      try {
        const perSession = await Promise.all(
          sessions.map(async (session) =>
            idsOf(await session.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 5000)')),
          ),
        );
        for (const [index, ids] of perSession.entries()) expectIncreasing(ids, `session ${index}`);
        expect(expectDistinct(perSession.flat())).toBe(40_000);
        // From the frozen millisecond on, borrowing the following ones: 40 blocks of 1,024, a few more
        // for the values racing sessions took past a block and discarded.
        const ms = perSession.flat().map((id) => decodeId(id).ms);
        expect(Math.min(...ms)).toBe(frozen);
        expect(Math.max(...ms)).toBeLessThanOrEqual(frozen + 50);
      } finally {
        await Promise.all(sessions.map((session) => pgClock.reset(session)));
      }
    });

    it('keeps every id unique and increasing per session when the clock steps back 5 s mid-stream', async () => {
      const sessions = await open(8);
      await resetState();
      const started = Date.now();
      const perSession = await Promise.all(
        sessions.map(async (session, index) => {
          const ids: bigint[] = [];
          for (let round = 0; round < 40; round++) {
            // Each session sees the step at a different moment, as clients of a stepped server would.
            if (round === 10 + index) await pgClock.offset(session, -5000);
            ids.push(
              ...idsOf(
                await session.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 500)'),
              ),
            );
          }
          await pgClock.reset(session);
          return ids;
        }),
      );
      for (const [index, ids] of perSession.entries()) expectIncreasing(ids, `session ${index}`);
      expect(expectDistinct(perSession.flat())).toBe(8 * 40 * 500);
      // The state followed the real clock before the step, so the step was one the generator saw.
      for (const ids of perSession) {
        expect(decodeId(ids[0]!).ms).toBeGreaterThanOrEqual(started - 1);
        expect(decodeId(ids[0]!).ms).toBeLessThan(started + 1000);
      }
    });

    it('continues above the last id when every session steps back 5 s at once', async () => {
      const sessions = await open(8);
      await resetState();
      const started = Date.now();
      const burst = () =>
        Promise.all(
          sessions.map(async (session) =>
            idsOf(await session.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 500)')),
          ),
        );
      const before = await burst();
      await Promise.all(sessions.map((session) => pgClock.offset(session, -5000)));
      const stepped = Date.now() - 5000;
      const after = await burst();
      await Promise.all(sessions.map((session) => pgClock.reset(session)));
      expect(decodeId(before.flat()[0]!).ms).toBeGreaterThanOrEqual(started - 1);
      const lastBefore = before.flat().reduce((a, b) => (a > b ? a : b));
      for (const [index, ids] of after.entries()) {
        expectIncreasing([...before[index]!, ...ids], `session ${index}`);
        // Every clock now reads 5 s behind the issued ids: the state, not the clock, orders them.
        expect(ids[0]! > lastBefore).toBe(true);
        expect(decodeId(ids[0]!).ms).toBeGreaterThan(stepped + 4000);
      }
      expect(expectDistinct([...before.flat(), ...after.flat()])).toBe(2 * 8 * 500);
    });

    it('an open transaction that inserted rows does not make other sessions wait', async () => {
      const [holder, ...others] = await open(5);
      const [{ pid } = { pid: 0 }] = await holder!.query<{ pid: number }>('select pg_backend_pid() as pid');
      await db().executor.query('create table orders (id bigint primary key default sheaf.next_id(), n integer)');
      await holder!.query('begin');
      // Enough rows to cross several milliseconds, so the holder ran the slow path inside its transaction.
      await holder!.query('insert into orders (n) select g from generate_series(1, 5000) g');
      const watch = watchLockWaits(db().executor, pid);
      try {
        const started = Date.now();
        await Promise.all(
          others.map(async (session) => {
            await session.query("set statement_timeout = '3s'");
            for (let round = 0; round < 20; round++) {
              await session.query('insert into orders (n) select g from generate_series(1, 100) g');
              await session.query('select sheaf.next_ids(600)');
              await new Promise((resolve) => setTimeout(resolve, 2));
            }
            await session.query('set statement_timeout = 0');
          }),
        );
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(await watch.stop(), 'sessions seen waiting for the open transaction').toBe(0);
      } finally {
        await watch.stop();
        await holder!.query('commit');
      }
      const [row] = await db().executor.query<{ n: string }>('select count(distinct id) as n from orders');
      expect(Number(row?.n)).toBe(5000 + 4 * 20 * 100);
    });

    it('a statement cancelled inside the slow path leaves no lock behind', async () => {
      const [victim, other] = await open(2);
      const [{ pid } = { pid: 0 }] = await victim!.query<{ pid: number }>('select pg_backend_pid() as pid');
      // The victim's clock runs ahead, so its next id must open a block: it pauses there, holding the lock.
      await pgClock.offset(victim!, 3_600_000);
      await victim!.query("select set_config('sheaf.test_pause_ms', '3000', false)");
      await victim!.query("set statement_timeout = '300ms'");
      const epoch = async () =>
        Number((await other!.query<{ e: string }>("select pg_sequence_last_value('sheaf.lock_epoch') as e"))[0]?.e);
      const before = await epoch();
      const error = await victim!.query('select sheaf.next_id()').catch((caught: unknown) => caught);
      expect((error as { code?: string }).code).toBe('57014');
      // The key it held was seen in pg_locks: the epoch moved before it was freed, so it is stale.
      expect(await epoch()).toBeGreaterThan(before);
      await victim!.query("select set_config('sheaf.test_pause_ms', '', false)");
      await victim!.query('set statement_timeout = 0');
      await pgClock.reset(victim!);
      const locks = await other!.query<{ n: string }>(
        "select count(*) as n from pg_locks where locktype = 'advisory' and pid = $1",
        [pid],
      );
      expect(Number(locks[0]?.n)).toBe(0);
      // Another session gets through the slow path at once (its clock is ahead too).
      await other!.query("set statement_timeout = '2s'");
      await pgClock.offset(other!, 7_200_000);
      await other!.query('select sheaf.next_id()');
      await pgClock.reset(other!);
      await other!.query('set statement_timeout = 0');
    });
  },
  { only: ['postgres'] },
);
