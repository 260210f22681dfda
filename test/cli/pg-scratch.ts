import { pgExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { afterAll } from 'vitest';
import { dropPgDatabase } from '../support/drop-pg-database.js';
import { pgUrl, selectedTargets, withDatabase } from '../support/targets.js';

/** Whether the run includes the PostgreSQL server target. */
export const postgresSelected = selectedTargets().includes('postgres');

const created: string[] = [];
// Registered by the test file importing this module.
afterAll(async () => {
  await onServer(async (admin) => {
    for (const name of created.splice(0)) await dropPgDatabase(admin, name);
  });
});

/** A fresh database name of the file's own, dropped when the file ends. */
export function scratchName(): string {
  const name = `sheaf_cli_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  created.push(name);
  return name;
}

/** An empty database on the shared server, dropped when the file ends: its URL. */
export async function scratchDatabase(): Promise<string> {
  const name = scratchName();
  await onServer((admin) => admin.query(`create database ${name}`));
  return withDatabase(pgUrl, name);
}

/**
 * A copy of the database behind `url` made with `create database … template`, dropped when the file
 * ends: its URL. Nobody may be connected to the original meanwhile.
 */
export async function templateCopy(url: string): Promise<string> {
  const name = scratchName();
  const original = new URL(url).pathname.slice(1);
  await onServer((admin) => admin.query(`create database ${name} template ${original}`));
  return withDatabase(pgUrl, name);
}

/** Runs `work` as the server's superuser, connected to its maintenance database. */
export async function onServer<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Runs `work` on one connection to the database behind `url`, closed afterwards. */
export async function onUrl<T>(url: string, work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(pgExecutor(client));
  } finally {
    await client.end();
  }
}

/** The first column of the first row of `statement` on the database behind `url`. */
export async function firstValue(url: string, statement: string): Promise<string> {
  const [row] = await onUrl(url, (sql) => sql.query<Record<string, unknown>>(statement));
  return String(Object.values(row ?? {})[0]);
}
