import { pgExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { dropPgDatabase } from './drop-pg-database.js';
import { withDatabase } from './targets.js';

/** A database made by a test on some PostgreSQL server (the shared one or a scratch cluster). */
export interface PgDatabase {
  readonly name: string;
  readonly url: string;
  /** A small pool on it. */
  readonly executor: SqlExecutor;
  /** Ends the pool; call before `create database … template` of it, or dropping it. */
  close(): Promise<void>;
}

/** A unique database name, `sheaf_<what>_<time>_<random>`. */
export const pgDatabaseName = (what: string) =>
  `sheaf_${what}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/**
 * Creates a database on the server of `serverUrl` (with `create database … <clause>` when given,
 * e.g. `template orig`), and opens a pool on it whose idle clients ignore a server killed under them.
 */
export async function createPgDatabase(serverUrl: string, name: string, clause = ''): Promise<PgDatabase> {
  await onPg(serverUrl, (client) => client.query(`create database ${name} ${clause}`));
  return openPgDatabase(withDatabase(serverUrl, name));
}

/** A pool on an existing database. */
export function openPgDatabase(url: string): PgDatabase {
  const pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  let ended = false;
  return {
    name: new URL(url).pathname.slice(1),
    url,
    executor: pgExecutor(pool),
    async close() {
      if (ended) return;
      ended = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/** Drops databases of the server of `serverUrl` (once their sessions have gone). */
export async function dropPgDatabases(serverUrl: string, names: readonly string[]): Promise<void> {
  await onPg(serverUrl, async (client) => {
    for (const name of names) await dropPgDatabase(client, name);
  });
}

/** Runs `work` on one client of `url`. */
export async function onPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
