import { install, mysql2Executor, pgExecutor, SegmentGenerator, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Opened, openDatabase } from '../support/database.js';
import { createScratchCluster, postgresBinDir } from '../support/scratch-cluster.js';
import { createScratchMariadb, mariadbMissing } from '../support/scratch-mariadb.js';
import { classMaxId, createSegmentClass } from '../support/segment-classes.js';
import { selectedTargets, type TargetName } from '../support/targets.js';
import { until } from '../support/test-clock.js';

/** The database the test kills: a scratch server of its own, never the shared one. */
interface Doomed {
  readonly executor: SqlExecutor;
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

async function postgresDoomed(): Promise<Doomed> {
  const cluster = await createScratchCluster();
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4, connectionTimeoutMillis: 1000 });
  // Idle clients of a killed server emit errors on the pool; the generator sees them on its queries.
  pool.on('error', () => undefined);
  return {
    executor: pgExecutor(pool),
    crash: async () => cluster.crash(),
    start: async () => cluster.start(),
    async destroy() {
      await pool.end().catch(() => undefined);
      cluster.destroy();
    },
  };
}

async function mariadbDoomed(): Promise<Doomed> {
  const server = await createScratchMariadb();
  const pool = mysql.createPool({ uri: server.url, connectionLimit: 4, connectTimeout: 1000 });
  return {
    executor: mysql2Executor(pool),
    crash: () => server.crash(),
    start: () => server.start(),
    async destroy() {
      await pool.end().catch(() => undefined);
      server.destroy();
    },
  };
}

const kinds: { target: TargetName; missing: string | false | undefined; open: () => Promise<Doomed> }[] = [
  {
    target: 'postgres',
    missing: selectedTargets().includes('postgres')
      ? postgresBinDir() === undefined && 'PostgreSQL server binaries not installed'
      : 'postgres is not in SHEAF_TEST_TARGETS',
    open: postgresDoomed,
  },
  {
    target: 'mariadb',
    missing: selectedTargets().includes('mariadb') ? mariadbMissing() : 'mariadb is not in SHEAF_TEST_TARGETS',
    open: mariadbDoomed,
  },
];

const total = 24_000;
const generators = 4;
const callersPerGenerator = 6;
const step = 40;

// One biz_tag over three databases: two on the shared server, the third a scratch server that is
// killed with SIGKILL while 24 callers take ids. Nothing is mocked: the drivers see broken sockets
// and refused connections.
for (const { target, missing, open } of kinds) {
  describe.skipIf(Boolean(missing))(
    `one segment over three databases, one killed [${target}${missing ? `: ${missing}` : ''}]`,
    () => {
      let doomed: Doomed;
      const stable: Opened[] = [];
      let dbs: SqlExecutor[] = [];
      let passed = false;

      beforeAll(async () => {
        [doomed] = await Promise.all([open(), ...[0, 1].map(async () => stable.push(await openDatabase(target)))]);
        dbs = [...stable.map((each) => each.database.executor), doomed.executor];
        for (const [k, executor] of dbs.entries()) {
          await install(executor);
          await createSegmentClass(executor, 'orders', 3, k, step);
        }
      }, 180_000);

      afterAll(async () => {
        await doomed?.destroy();
        for (const each of stable) await each.close(passed);
      });

      it(`${generators} generators × ${callersPerGenerator} callers, database 2 killed a quarter in: no error, no id twice, each id in its database’s class`, async () => {
        const options = {
          bizTag: 'orders',
          dynamicStep: false,
          queryTimeoutMs: 1000,
          retry: { minMs: 20, maxMs: 200 },
        };
        const all = await Promise.all(
          Array.from({ length: generators }, () => new SegmentGenerator(dbs, options).start()),
        );
        const ids: number[] = [];
        const failures: unknown[] = [];
        let killedAt = -1;
        let killing: Promise<void> | undefined;
        const caller = async (ids$: SegmentGenerator) => {
          while (ids.length < total) {
            try {
              ids.push(ids$.nextSync() ?? (await ids$.next()));
            } catch (error) {
              failures.push(error);
            }
            if (killedAt < 0 && ids.length >= total / 4) {
              killedAt = ids.length;
              killing = doomed.crash();
            }
            // Traffic, not a busy loop: the background fetches get their turn.
            if (ids.length % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
        };
        await Promise.all(all.flatMap((ids$) => Array.from({ length: callersPerGenerator }, () => caller(ids$))));
        await killing;
        expect(failures).toEqual([]);
        expect(new Set(ids).size).toBe(ids.length);
        // Database 2's ids after the kill came from the buffers: at most two segments per generator.
        const lateFromDoomed = ids.slice(killedAt).filter((id) => id % 3 === 2).length;
        expect(lateFromDoomed).toBeLessThanOrEqual(generators * 2 * step);
        const statuses = all.map((ids$) => ids$.databases()[2]!);
        expect(statuses.some((status) => !status.up)).toBe(true);

        // Back up: its max_id bounds every id of its class, and the generators take segments from it again.
        await doomed.start();
        const before = all.map((ids$) => ids$.databases()[2]!.segments);
        await until(
          () => {
            for (const ids$ of all) for (let i = 0; i < 20; i++) ids.push(ids$.nextSync() ?? 0);
            return all.some((ids$, i) => ids$.databases()[2]!.segments > before[i]!);
          },
          20_000,
          'a segment from the restarted database',
        );
        const handed = ids.filter((id) => id !== 0);
        expect(new Set(handed).size).toBe(handed.length);
        for (const [k, executor] of dbs.entries()) {
          const max = await classMaxId(executor, 'orders');
          const mine = handed.filter((id) => id % 3 === k);
          expect(mine.length).toBeGreaterThan(0);
          expect(mine.every((id) => BigInt(id) <= max)).toBe(true);
        }
        await Promise.all(all.map((ids$) => ids$.close()));
        passed = true;
      }, 60_000);
    },
  );
}
