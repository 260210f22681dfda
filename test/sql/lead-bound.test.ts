import { decodeId, install, type SqlExecutor } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, idsOf, pgClock } from '../support/pg-clock.js';

// The lead bound and the rebase of SQL version 16 (docs/replication.md, Failover and crashes): no
// block opens more than 2 s ahead of the clock, plus the allowance a step back of the clock gave;
// a reset live block (a crash restart, a promotion) starts the next block above everything before.
const maxLeadMs = 2000;
const skewMs = 1000;

async function take(session: SqlExecutor, count: number): Promise<bigint[]> {
  return idsOf(await session.query<{ id: unknown }>(`select sheaf.next_id() as id from generate_series(1, ${count})`));
}

/** The unix ms of the session's (test) clock. */
async function clockMs(session: SqlExecutor): Promise<number> {
  const [row] = await session.query<{ ms: string }>(
    `select coalesce(nullif(current_setting('sheaf.clock_ms', true), '')::bigint,
       floor(date_part('epoch', clock_timestamp()) * 1000)::bigint)
       + coalesce(nullif(current_setting('sheaf.clock_offset_ms', true), '')::bigint, 0) as ms`,
  );
  return Number(row?.ms);
}

async function allowance(session: SqlExecutor): Promise<number> {
  const [row] = await session.query<{ ms: string }>("select pg_sequence_last_value('sheaf.step_allowance') as ms");
  return Number(row?.ms ?? 0);
}

describeGeneratorPaths(
  'the lead bound and the rebase',
  (db, target, path) => {
    const sql = () => db().executor;
    /**
     * `count` ids on a new connection, as after a crash restart or a promotion every session is: the
     * C path's backends keep the last block they saw, which a reset cannot reach (docs/native.md), and
     * a pooled session may be a backend that saw one. PGlite has one connection and PL/pgSQL only.
     */
    const takeOnNewConnection = async (count: number) => {
      if (target === 'pglite') return sql().session((s) => take(s, count));
      const fresh = await db().connect();
      try {
        return await take(fresh.executor, count);
      } finally {
        await fresh.close();
      }
    };
    beforeAll(async () => {
      await install(sql(), { shard: 5, testClock: true, ...path.install('postgres') });
      await expectGeneratorPath(sql(), path);
    });

    /** Runs `work` on one session with the clock as given, from a state reset to that clock. */
    const session = <T>(clock: { frozen?: number; offset?: number }, work: (s: SqlExecutor) => Promise<T>) =>
      sql().session(async (s) => {
        await pgClock.set(s, clock.frozen ?? null);
        await pgClock.offset(s, clock.offset ?? 0);
        await s.query('select sheaf._test_reset()');
        try {
          return await work(s);
        } finally {
          await pgClock.reset(s);
        }
      });

    it('a batch that would run more than 2 s ahead of a frozen clock waits, then fails with GENERATOR_BUSY', async () => {
      await session({ frozen: Date.now() }, async (s) => {
        // 1,000,000 ids span 977 ms of the sheaf layout: two fit under the bound, a third does not.
        for (const _ of [1, 2]) await s.query('select count(*) from sheaf.next_ids(1000000)');
        const started = Date.now();
        await expectSheafRejection(
          s.query('select count(*) from sheaf.next_ids(1000000)'),
          'GENERATOR_BUSY',
          'ahead of the clock',
        );
        expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      });
    }, 30_000);

    it('batches on a moving clock wait for it and never run more than 2 s ahead', async () => {
      await session({}, async (s) => {
        for (let round = 0; round < 3; round++) {
          const [row] = await s.query<{ last: string }>('select max(id)::text as last from sheaf.next_ids(1000000) id');
          const lead = decodeId(BigInt(row!.last)).ms - (await clockMs(s));
          expect(lead, `round ${round}`).toBeLessThanOrEqual(maxLeadMs + 1);
        }
      });
    }, 30_000);

    it('a clock stepped back 1 h: ids continue above the last one, up to 1 h ahead, without an error', async () => {
      await session({}, async (s) => {
        const before = await take(s, 3000);
        await pgClock.offset(s, -3_600_000);
        const after: bigint[] = [];
        // Bursts above a millisecond's capacity, over about 100 ms of the stepped clock.
        for (let round = 0; round < 20; round++) after.push(...(await take(s, 2500)));
        expectIncreasing([...before, ...after]);
        expect(expectDistinct([...before, ...after])).toBe(53_000);
        const stepped = await clockMs(s);
        const lead = decodeId(after.at(-1)!).ms - stepped;
        // Their time stays at the last block before the step, about 1 h ahead of the stepped clock.
        expect(decodeId(after[0]!).ms).toBeGreaterThanOrEqual(decodeId(before.at(-1)!).ms);
        expect(lead).toBeGreaterThan(3_600_000 - 10_000);
        expect(lead).toBeLessThanOrEqual(3_600_000 + maxLeadMs);
        expect(await allowance(s)).toBeGreaterThan(3_590_000);
        // Back to the real clock: the ids are within the plain bound again, and the allowance is gone.
        await pgClock.offset(s, 3_700_000);
        await take(s, 2000);
        expect(await allowance(s)).toBe(0);
      });
    }, 30_000);

    it('a reset live block (a crash restart, a promotion) starts above every id before, 3 s ahead', async () => {
      const { before, clock } = await session({}, async (s) => {
        const before = await take(s, 5000);
        await s.query("select setval('sheaf.live_block', -1, false)");
        return { before, clock: await clockMs(s) };
      });
      const after = await takeOnNewConnection(5000);
      expectIncreasing([...before, ...after]);
      expect(decodeId(after[0]!).ms).toBeGreaterThanOrEqual(clock + maxLeadMs + skewMs);
      expect(decodeId(after[0]!).ms).toBeLessThan(clock + maxLeadMs + skewMs + 1000);
    }, 30_000);

    it('sequences never called (a schema copied without their values) neither spin nor repeat', async () => {
      await session({}, async (s) => {
        const before = await take(s, 2000);
        await s.query("select setval('sheaf.lock_epoch', 0, false)");
        await s.query("select setval('sheaf.live_block', -1, false)");
        const started = Date.now();
        const after = await take(s, 2000);
        expect(Date.now() - started).toBeLessThan(2000);
        expectIncreasing([...before, ...after]);
      });
    }, 30_000);
  },
  { only: ['postgres', 'pglite'] },
);
