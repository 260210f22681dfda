import { grant, install, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath, nativePath } from '../support/generator-paths.js';
import { idsOf, pgClock } from '../support/pg-clock.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';

/** The advisory locks other backends hold now, as the bigint keys pg_advisory_lock takes. */
async function heldKeys(session: SqlExecutor): Promise<string[]> {
  const rows = await session.query<{ key: string }>(
    `select ((classid::bigint << 32) | objid::bigint)::text as key from pg_locks
     where locktype = 'advisory' and granted and objsubid = 1 and pid <> pg_backend_pid()`,
  );
  return rows.map((row) => row.key);
}

// The slow path's lock, attacked by a role that can merely connect: it holds the key versions 1-7
// used, and grabs every key it sees held in pg_locks. A test install, so that one session can hold
// the lock long enough (sheaf.test_pause_ms) for the key to be seen.
describeGeneratorPaths(
  'nobody can hold the generator lock',
  (db, target, path) => {
    let roles: SuiteRoles;
    let stranger: { executor: SqlExecutor; close(): Promise<void> };

    beforeAll(async () => {
      // Only a superuser may create sheaf_native: the native path's owner is one.
      roles = await suiteRoles(db(), { superuserOwner: path === nativePath });
      await roles.as(roles.owner, async (owner) => {
        await install(owner, { shard: 3, testClock: true, ...path.install(target) });
        await grant(owner, roles.app);
      });
      await expectGeneratorPath(db().executor, path);
      stranger = await db().connect();
      await stranger.executor.query(`set role ${roles.stranger}`);
    });
    afterAll(async () => {
      await stranger?.close();
      await roles?.drop();
    });

    it('ids keep coming while a stranger holds the old fixed key and every key it sees', async () => {
      await stranger.executor.query('select pg_advisory_lock(495672713574)');
      const sessions = await db().sessions(4);
      for (const session of sessions) await session.query(`set role ${roles.app}`);
      const [slow, ...others] = sessions as [SqlExecutor, ...SqlExecutor[]];
      await slow.query("set sheaf.test_pause_ms = '40'");
      let running = true;
      const grabbed = new Set<string>();
      const grabbing = (async () => {
        while (running) {
          for (const key of await heldKeys(stranger.executor)) {
            if (key === '495672713574' || grabbed.has(key)) continue;
            // Waits for the holder, then keeps the key for the rest of the test.
            await stranger.executor.query('select pg_advisory_lock($1::bigint)', [key]);
            grabbed.add(key);
          }
        }
      })();
      try {
        // Every call of `slow` opens a block (its clock runs a second ahead) and holds the lock 40 ms.
        await pgClock.offset(slow, 1000);
        const slowIds = (async () => {
          const ids: bigint[] = [];
          for (let i = 0; i < 25; i++) {
            await pgClock.offset(slow, 1000 + i * 50);
            ids.push(...idsOf(await slow.query<{ id: unknown }>('select sheaf.next_id() as id')));
          }
          return ids;
        })();
        const batches = others.map(async (session) => {
          await session.query("set statement_timeout = '20s'");
          const ids: bigint[] = [];
          for (let i = 0; i < 20; i++) {
            ids.push(
              ...idsOf(
                await session.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 500)'),
              ),
            );
          }
          return ids;
        });
        const all = [...(await slowIds), ...(await Promise.all(batches)).flat()];
        expect(all).toHaveLength(25 + 3 * 20 * 500);
        expect(new Set(all).size).toBe(all.length);
      } finally {
        running = false;
        await grabbing;
        for (const session of sessions) {
          await session.query('reset sheaf.test_pause_ms; reset statement_timeout; reset role');
          await pgClock.reset(session);
        }
      }
      // The stranger did hold keys the generator had used: each was stale by the time it was free.
      expect(grabbed.size).toBeGreaterThan(3);
      // No generating session kept a lock, whatever its waits ran into (lock timeouts included).
      const pids = await Promise.all(
        sessions.map(
          async (session) => (await session.query<{ pid: number }>('select pg_backend_pid() as pid'))[0]?.pid,
        ),
      );
      const [left] = await stranger.executor.query<{ n: number }>(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = any ($1::int[])",
        [pids],
      );
      expect(left?.n).toBe(0);
      await stranger.executor.query('select pg_advisory_unlock_all()');
    });

    it('a wait for the lock ends in GENERATOR_BUSY, naming the holder', async () => {
      const [holder, waiter] = (await db().sessions(2)) as [SqlExecutor, SqlExecutor];
      for (const session of [holder, waiter]) await session.query(`set role ${roles.app}`);
      const [{ pid } = { pid: 0 }] = await holder.query<{ pid: number }>('select pg_backend_pid() as pid');
      try {
        await holder.query("set sheaf.test_pause_ms = '5000'");
        await pgClock.offset(holder, 600_000);
        await pgClock.offset(waiter, 700_000);
        let holderDone = false;
        const held = holder.query<{ id: unknown }>('select sheaf.next_id() as id').finally(() => {
          holderDone = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        await expectSheafRejection(waiter.query('select sheaf.next_id()'), 'GENERATOR_BUSY', `pid ${pid}`);
        const waited = Date.now() - started;
        // It waited, and gave up while the holder still held the lock: bounded, not a hang.
        expect(waited).toBeGreaterThanOrEqual(1500);
        expect(holderDone).toBe(false);
        expect(idsOf(await held)).toHaveLength(1);
      } finally {
        for (const session of [holder, waiter]) {
          await session.query('reset sheaf.test_pause_ms; reset role');
          await pgClock.reset(session);
        }
      }
    });
  },
  { only: ['postgres'] },
);
