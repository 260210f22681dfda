import { readFileSync } from 'node:fs';
import { install, mysql2Executor, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll } from 'vitest';
import { fingerprintMysql } from '../../packages/migrate/src/apply/fingerprint-mysql.js';
import type { QualifiedName, TableFingerprint } from '../../packages/migrate/src/model.js';
import { mysqlUrl, withDatabase } from '../support/targets.js';

/** The fixture's statements, split on sheaf's break marker as a driver must run them. */
export const fixtureStatements = readFileSync(new URL('../fixtures/migrate/mysql.sql', import.meta.url), 'utf8')
  .split(/^-- sheaf:break$/m)
  .map((statement) => statement.trim())
  .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');

/** The shard the fixture databases issue ids for. */
export const fixtureShard = 7;

/** The hostile table name of the fixture. */
export const nasty = 'a`; drop table x; --';

const cleanups: (() => Promise<void>)[] = [];
// Registered by the test file importing this module.
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Loads the fixture (and sheaf, shard 7) into the database behind `url`. */
export async function loadFixture(url: string, options: { install?: boolean } = {}): Promise<void> {
  await withMysql(url, async (sql) => {
    for (const statement of fixtureStatements) await sql.query(statement);
    if (options.install !== false) await install(sql, { shard: fixtureShard });
  });
}

/** A new database of its own holding the fixture, dropped after the file's tests; returns its URL. */
export async function fixtureDatabase(options: { install?: boolean } = {}): Promise<string> {
  const name = `sheaf_m_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const cleanup = await mysql.createConnection({ uri: mysqlUrl });
    await cleanup.query(`drop database if exists ${name}`);
    await cleanup.query(`drop database if exists sheaf_${name}`);
    await cleanup.end();
  });
  const url = withDatabase(mysqlUrl, name);
  await loadFixture(url, options);
  return url;
}

/** Runs `work` on one connection to the database behind `url`. */
export async function withMysql<T>(url: string, work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    return await work(mysql2Executor(connection));
  } finally {
    await connection.end();
  }
}

/** Every base table of the current database, sheaf's own left out. */
export async function userTables(sql: SqlExecutor): Promise<QualifiedName[]> {
  const rows = await sql.query<{ schema_name: string; name: string }>(
    `select table_schema as schema_name, table_name as name from information_schema.tables
     where table_schema = database() and table_type = 'BASE TABLE' and table_name not like 'sheaf\\_%'
     order by table_name`,
  );
  return rows.map((row) => ({ schema: row.schema_name, name: row.name }));
}

/** Everything a failed run must leave as it was: each table's DDL and data fingerprint, and the triggers. */
export async function snapshot(
  sql: SqlExecutor,
): Promise<{ ddl: string[]; data: TableFingerprint[]; triggers: string[] }> {
  const tables = await userTables(sql);
  const ddl: string[] = [];
  for (const table of tables) {
    const [row] = await sql.query<Record<string, string>>(`show create table ${sql.dialect.quoteIdent(table.name)}`);
    ddl.push(String(row?.['Create Table']));
  }
  const triggers = await sql.query<{ name: string }>(
    'select trigger_name as name from information_schema.triggers where trigger_schema = database() order by 1',
  );
  return { ddl, data: await fingerprintMysql(sql, tables), triggers: triggers.map((row) => row.name) };
}

/** Every foreign key of the current database with its column pairs and rules, to compare before and after. */
export function foreignKeys(sql: SqlExecutor): Promise<Record<string, unknown>[]> {
  return sql.query(
    `select r.table_name, r.constraint_name, r.referenced_table_name, r.update_rule, r.delete_rule,
       group_concat(k.column_name, '>', k.referenced_column_name order by k.ordinal_position) as pairs
     from information_schema.referential_constraints r
     join information_schema.key_column_usage k on k.constraint_schema = r.constraint_schema
       and k.constraint_name = r.constraint_name and k.table_name = r.table_name
     where r.constraint_schema = database()
     group by r.table_name, r.constraint_name, r.referenced_table_name, r.update_rule, r.delete_rule
     order by r.table_name, r.constraint_name`,
  );
}

/** The type of every column of the current database, as `table.column: type`. */
export async function columnTypes(sql: SqlExecutor): Promise<Record<string, string>> {
  const rows = await sql.query<{ name: string; type: string }>(
    `select concat(table_name, '.', column_name) as name, column_type as type from information_schema.columns
     where table_schema = database() and table_name not like 'sheaf\\_%'`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.type]));
}
