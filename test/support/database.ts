import type { PGlite } from '@electric-sql/pglite';
import { mysql2Executor, pgExecutor, pgliteExecutor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { dropPgDatabase } from './drop-pg-database.js';
import { freshPglite } from './pglite-template.js';
import { allTargets, mysqlUrl, pgUrl, selectedTargets, type TargetName, withDatabase } from './targets.js';

/** A connection of its own, for tests that need several sessions at once. */
export interface Connection {
  readonly executor: SqlExecutor;
  close(): Promise<void>;
}

/** A fresh database made for one test file on one target. */
export interface TestDatabase {
  readonly target: TargetName;
  /** A pool on server targets; the single connection on PGlite. */
  readonly executor: SqlExecutor;
  /** The database's URL on server targets. */
  readonly url: string | undefined;
  /** The embedded database on the pglite target (for ORMs that take the instance). */
  readonly pglite?: PGlite;
  /** Opens another connection to the same database (server targets only: PGlite has one). */
  connect(): Promise<Connection>;
  /**
   * `count` connections of the suite's own, opened on first use, reused by later calls and closed
   * when the suite ends (server targets only).
   */
  sessions(count: number): Promise<SqlExecutor[]>;
}

export interface Opened {
  database: TestDatabase;
  /** Closes connections; drops the database only when every test passed, to leave failures inspectable. */
  close(passed: boolean): Promise<void>;
}

const uniqueName = () => `sheaf_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

async function openPostgres(): ReturnType<Opener> {
  const name = uniqueName();
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(pgUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  return {
    database: {
      target: 'postgres',
      executor: pgExecutor(pool),
      url,
      async connect() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return { executor: pgExecutor(client), close: () => client.end() };
      },
    },
    async close(passed) {
      await pool.end();
      if (!passed) return;
      const cleanup = new pg.Client({ connectionString: pgUrl });
      await cleanup.connect();
      await dropPgDatabase(cleanup, name);
      await cleanup.end();
    },
  };
}

async function openMariadb(): ReturnType<Opener> {
  const name = uniqueName();
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(mysqlUrl, name);
  const pool = mysql.createPool({ uri: url, connectionLimit: 20 });
  return {
    database: {
      target: 'mariadb',
      executor: mysql2Executor(pool),
      url,
      async connect() {
        const connection = await mysql.createConnection({ uri: url });
        return { executor: mysql2Executor(connection), close: () => connection.end() };
      },
    },
    async close(passed) {
      await pool.end();
      if (!passed) return;
      const cleanup = await mysql.createConnection({ uri: mysqlUrl });
      await cleanup.query(`drop database if exists ${name}`);
      await cleanup.query(`drop database if exists sheaf_${name}`);
      await cleanup.end();
    },
  };
}

async function openPglite(): ReturnType<Opener> {
  const db = await freshPglite();
  return {
    database: {
      target: 'pglite',
      executor: pgliteExecutor(db),
      url: undefined,
      pglite: db,
      connect: () => Promise.reject(new Error('PGlite is a single connection: use a server target')),
    },
    close: () => db.close(),
  };
}

/**
 * Another fresh database on `target`, for tests of several databases (one id space, a registry);
 * `close(passed)` drops it when the test passed.
 */
export async function openDatabase(target: TargetName): Promise<Opened> {
  return withSessions(await openers[target]());
}

type Opener = () => Promise<Omit<Opened, 'database'> & { database: Omit<TestDatabase, 'sessions'> }>;

/** Adds the pooled `sessions` to an opened database, closing them before the database. */
function withSessions(opened: Awaited<ReturnType<Opener>>): Opened {
  const pool: Connection[] = [];
  const database = opened.database;
  return {
    database: {
      ...database,
      async sessions(count) {
        while (pool.length < count) pool.push(await database.connect());
        return pool.slice(0, count).map((connection) => connection.executor);
      },
    },
    async close(passed) {
      await Promise.all(pool.map((connection) => connection.close()));
      await opened.close(passed);
    },
  };
}

const openers: Record<TargetName, Opener> = {
  postgres: openPostgres,
  mariadb: openMariadb,
  pglite: openPglite,
};

export interface TargetOptions {
  /** Limits the suite to these targets, e.g. server targets for concurrency; the rest are reported as skipped. */
  only?: readonly TargetName[];
}

/**
 * Declares `body` once per selected target, each with a fresh database of its own.
 * `db()` is valid inside tests and hooks.
 */
export function describeTargets(
  title: string,
  body: (db: () => TestDatabase, target: TargetName) => void,
  options: TargetOptions = {},
): void {
  describeEachTarget(
    title,
    (target) => {
      let opened: Opened | undefined;
      let passed = true;
      beforeAll(async () => {
        opened = withSessions(await openers[target]());
      });
      beforeEach(({ onTestFailed }) => {
        onTestFailed(() => {
          passed = false;
        });
      });
      afterAll(async () => {
        await opened?.close(passed);
      });
      body(() => {
        if (!opened) throw new Error(`the ${target} test database is not open`);
        return opened.database;
      }, target);
    },
    options,
  );
}

/**
 * Declares `body` once per selected target, named like {@link describeTargets}' suites, for suites
 * that make the databases they use: opening one they never touch cost a PGlite boot or a
 * PostgreSQL `create database`.
 */
export function describeEachTarget(
  title: string,
  body: (target: TargetName) => void,
  options: TargetOptions = {},
): void {
  const selected = selectedTargets();
  for (const target of options.only ?? allTargets) {
    const chosen = selected.includes(target);
    const run = chosen ? describe : describe.skip;
    run(`${title} [${target}${chosen ? '' : ': not in SHEAF_TEST_TARGETS'}]`, () => body(target));
  }
}
