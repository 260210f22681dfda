import { mysql2Executor, pgExecutor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createScratchCluster, postgresBinDir } from './scratch-cluster.js';
import { createScratchMariadb, mariadbMissing } from './scratch-mariadb.js';
import { selectedTargets, type TargetName } from './targets.js';

/** A scratch server the test kills with SIGKILL and starts again, with a pool on it: never the shared one. */
export interface ScratchOutage {
  readonly executor: SqlExecutor;
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

// Small pools with a 1 s connect timeout, so a refused or hanging connection to the killed server
// fails fast instead of holding up the test.
async function postgresOutage(): Promise<ScratchOutage> {
  const cluster = await createScratchCluster();
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4, connectionTimeoutMillis: 1000 });
  // Idle clients of a killed server emit errors on the pool; the callers see them on their queries.
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

async function mariadbOutage(): Promise<ScratchOutage> {
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

/** Each kind of scratch server, with why it cannot be made here (a skip reason) or a falsy value. */
export const scratchOutages: {
  readonly target: Extract<TargetName, 'postgres' | 'mariadb'>;
  readonly title: string;
  readonly missing: string | false | undefined;
  readonly open: () => Promise<ScratchOutage>;
}[] = [
  {
    target: 'postgres',
    title: 'postgres scratch cluster',
    missing: selectedTargets().includes('postgres')
      ? postgresBinDir() === undefined && 'PostgreSQL server binaries not installed'
      : 'postgres is not in SHEAF_TEST_TARGETS',
    open: postgresOutage,
  },
  {
    target: 'mariadb',
    title: 'mariadb scratch server',
    missing: selectedTargets().includes('mariadb') ? mariadbMissing() : 'mariadb is not in SHEAF_TEST_TARGETS',
    open: mariadbOutage,
  },
];
