import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteExecutor, type SqlExecutor, sheafTriggerSql } from '@sheaf/core';
import { afterAll } from 'vitest';
import type { TestDatabase } from '../support/database.js';
import { openPgliteDir, unpackPgliteDir } from '../support/pglite-template.js';
import type { TargetName } from '../support/targets.js';

const dirs: string[] = [];
// Registered by the test file importing this module.
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The dialect the CLI reports for a target. */
export const dialectOf = (target: TargetName) => (target === 'mariadb' ? 'mysql' : 'postgres');

/**
 * A URL for the CLI: the server database, or on the pglite target a fresh PGlite directory holding
 * an empty cluster (unpacked from the run's template: the CLI would spend seconds on initdb).
 */
export async function urlFor(target: TargetName, db: TestDatabase): Promise<string> {
  if (target !== 'pglite') return db.url!;
  const url = newPgliteUrl();
  unpackPgliteDir(url.slice('pglite:'.length));
  return url;
}

/** A `pglite:` URL naming a directory that does not exist yet: the CLI creates the database. */
export function newPgliteUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-cli-'));
  dirs.push(dir);
  return `pglite:${join(dir, 'data')}`;
}

/** Runs `work` on one connection to the database behind `url` (PGlite: opened here, after the CLI closed it). */
export async function onDatabase<T>(url: string, db: TestDatabase, work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
  if (url.startsWith('pglite:')) {
    const pglite = await openPgliteDir(url.slice('pglite:'.length));
    try {
      return await work(pgliteExecutor(pglite));
    } finally {
      await pglite.close();
    }
  }
  const connection = await db.connect();
  try {
    return await work(connection.executor);
  } finally {
    await connection.close();
  }
}

export const nextIdSql = { postgres: 'select sheaf.next_id() as id', mysql: 'select sheaf_next_id() as id' };
// A table whose key is assigned by sheaf: a column default on PostgreSQL, a trigger on MySQL.
export const keyedTableSql = {
  postgres: ['create table cli_orders (id bigint primary key default sheaf.next_id())'],
  mysql: [
    'create table cli_orders (id bigint not null auto_increment primary key)',
    sheafTriggerSql('cli_orders', 'id').create,
  ],
};
