import { decodeId, install, type SqlExecutor } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeNative, expectGeneratorPath, nativePath, takeIds } from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, pgClock } from '../support/pg-clock.js';

// The slow path in C (docs/native.md): it opens the blocks of every millisecond itself, leaves the
// rarer cases to sheaf._next_block(), and takes the same lock as that PL/pgSQL version, so the two
// exclude each other. Calls of sheaf._next_block() are counted by track_functions, also when C
// makes them, which tells which version opened a block.

const plpgsql = 'sheaf._plpgsql_next_id()';

/** Runs `work` in a transaction and returns its result with the calls of sheaf._next_block() in it. */
async function countingSlowPaths<T>(session: SqlExecutor, work: () => Promise<T>): Promise<[T, number]> {
  await session.query("set track_functions = 'all'");
  await session.query('begin');
  try {
    const result = await work();
    const [row] = await session.query<{ calls: string }>(
      "select pg_stat_get_xact_function_calls('sheaf._next_block()'::regprocedure) as calls",
    );
    return [result, Number(row?.calls ?? 0)];
  } finally {
    await session.query('commit');
  }
}

async function lockEpoch(session: SqlExecutor): Promise<number> {
  const [row] = await session.query<{ epoch: string }>("select pg_sequence_last_value('sheaf.lock_epoch') as epoch");
  return Number(row?.epoch);
}

describeNative('the slow path in C', (db) => {
  beforeAll(async () => {
    await install(db().executor, { shard: 6, testClock: true, native: true });
    await expectGeneratorPath(db().executor, nativePath);
  });

  it('opens the block of each millisecond itself, under the lock, without the PL/pgSQL version', async () => {
    await db().executor.session(async (s) => {
      await takeIds(s, 10);
      const before = await lockEpoch(s);
      const [ids, calls] = await countingSlowPaths(s, () => takeIds(s, 60_000));
      // 60,000 ids span at least 59 blocks of 1,024. Each was opened here under the lock, which moves
      // its epoch, but the first, which the 10 ids above may have opened (a hot block serves 8 ms).
      const blocks = new Set(ids.map((id) => decodeId(id).ms)).size;
      expect(blocks).toBeGreaterThanOrEqual(59);
      expect((await lockEpoch(s)) - before).toBeGreaterThanOrEqual(blocks - 1);
      expect(calls).toBe(0);
      expectIncreasing(ids);
      // The control: the PL/pgSQL version counts as a call per block it opens.
      const [, plpgsqlCalls] = await countingSlowPaths(s, () => takeIds(s, 20_000, plpgsql));
      expect(plpgsqlCalls).toBeGreaterThanOrEqual(19);
    });
  });

  it('leaves the rebase after a reset live block to the PL/pgSQL version', async () => {
    await db().executor.session(async (s) => {
      const before = await takeIds(s, 100);
      await s.query("select setval('sheaf.live_block', -1, false)");
      const started = Date.now();
      // A new connection, as every session is after a crash restart or a promotion (a pooled one
      // may be a backend that kept a later block).
      const fresh = await db().connect();
      const [after, calls] = await countingSlowPaths(fresh.executor, () => takeIds(fresh.executor, 100)).finally(() =>
        fresh.close(),
      );
      expect(calls).toBe(1);
      expectIncreasing([...before, ...after]);
      expect(decodeId(after[0]!).ms).toBeGreaterThanOrEqual(started + 3000);
      // The rebase left an allowance: the next blocks are the PL/pgSQL version's until it is paid.
      await s.query('select sheaf._test_reset()');
    });
  });

  it('the two versions side by side, 8 sessions in bursts above 1,024 ids a millisecond: no id twice', async () => {
    const sessions = await db().sessions(8);
    const [taken, calls] = [[] as bigint[][], [] as number[]];
    await Promise.all(
      sessions.map(async (session, index) => {
        const fn = index % 2 === 0 ? 'sheaf.next_id()' : plpgsql;
        const [ids, slow] = await countingSlowPaths(session, async () => {
          const ids: bigint[] = [];
          for (let i = 0; i < 15; i++) ids.push(...(await takeIds(session, 3000, fn)));
          return ids;
        });
        expectIncreasing(ids, `session ${index} (${fn})`);
        taken[index] = ids;
        calls[index] = slow;
      }),
    );
    expect(expectDistinct(taken.flat())).toBe(8 * 15 * 3000);
    // Both versions opened blocks: the PL/pgSQL sessions called their slow path, the C ones rarely.
    const plpgsqlCalls = calls.filter((_, index) => index % 2 === 1).reduce((a, b) => a + b, 0);
    expect(plpgsqlCalls).toBeGreaterThan(10);
  }, 60_000);

  for (const [index, [holder, waiter]] of (
    [
      ['sheaf.next_id()', plpgsql],
      [plpgsql, 'sheaf.next_id()'],
    ] as const
  ).entries()) {
    it(`one lock: ${waiter} waits while ${holder} holds it`, async () => {
      const [a, b] = (await db().sessions(2)) as [SqlExecutor, SqlExecutor];
      try {
        // Both a minute ahead of every block so far, the case before this one's included: each
        // call must open one.
        for (const session of [a, b]) await pgClock.offset(session, (index + 1) * 60_000);
        await a.query("set sheaf.test_pause_ms = '400'");
        const started = Date.now();
        const held = takeIds(a, 1, holder).then((ids) => ({ ids, at: Date.now() - started }));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const waited = await takeIds(b, 1, waiter).then((ids) => ({ ids, at: Date.now() - started }));
        const first = await held;
        // The waiter could not open a block beside the holder: it came out after the holder's pause.
        expect(waited.at).toBeGreaterThanOrEqual(first.at - 5);
        expect(waited.at).toBeGreaterThanOrEqual(380);
        expectDistinct([...first.ids, ...waited.ids]);
      } finally {
        for (const session of [a, b]) {
          await session.query('reset sheaf.test_pause_ms');
          await pgClock.reset(session);
        }
      }
    });
  }
});

describeNative('the slow path in C on a database at SQL version 19', (db) => {
  /** The milliseconds, after `t0`, of the block each scripted clock reading gets its id from, and the PL/pgSQL slow path's calls. */
  async function openedUnder(s: SqlExecutor, t0: number): Promise<[number[], number]> {
    // A database that never issued an id has no block to reset: its first is the PL/pgSQL rebase.
    await takeIds(s, 1);
    await pgClock.set(s, t0);
    await s.query('select sheaf._test_reset()');
    return countingSlowPaths(s, async () => {
      const opened: number[] = [];
      for (const clock of [0, 0, 1, 8, 9, 25, 33]) {
        await pgClock.set(s, t0 + clock);
        opened.push(decodeId((await takeIds(s, 1))[0]!).ms - t0);
      }
      return opened;
    });
  }

  it('opens blocks at the clock as version 19 did, and 7 ms ahead once upgraded to hot blocks', async () => {
    await install(db().executor, { shard: 3, testClock: true, native: true, upTo: 19 });
    await expectGeneratorPath(db().executor, nativePath);
    await db().executor.session(async (s) => {
      try {
        // Version 19: every block the clock needs opens at the clock, in C.
        const t0 = Date.now();
        expect(await openedUnder(s, t0)).toEqual([[0, 0, 1, 8, 9, 25, 33], 0]);
        await install(db().executor, { shard: 3, testClock: true, native: true });
        // The same script after the upgrade (a minute on, beyond every block so far): hot blocks lead.
        expect(await openedUnder(s, t0 + 60_000)).toEqual([[0, 0, 8, 8, 16, 25, 40], 0]);
      } finally {
        await pgClock.reset(s);
      }
    });
  });
});
