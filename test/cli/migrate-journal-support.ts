import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { install, mysqlStateOf, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, afterEach } from 'vitest';
import { fingerprintMysql } from '../../packages/migrate/src/apply/fingerprint-mysql.js';
import { mysqlUrl, withDatabase } from '../support/targets.js';
import { fixtureShard, foreignKeys, userTables, withMysql } from './migrate-mysql-support.js';

/** The journal fixture's statements, split on sheaf's break marker as a driver must run them. */
const statements = readFileSync(new URL('../fixtures/migrate/mysql-journal.sql', import.meta.url), 'utf8')
  .split(/^-- sheaf:break$/m)
  .map((statement) => statement.trim())
  .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');

const made: string[] = [];
let failed = false;
afterEach((context) => {
  if (context.task.result?.state === 'fail') failed = true;
});
// Kept for inspection when a test failed.
afterAll(async () => {
  if (failed) return;
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  for (const name of made) {
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`drop database if exists sheaf_${name}`);
  }
  await admin.end();
});

/** A new database holding the journal fixture with sheaf installed (shard 7); returns its URL. */
export async function journalDatabase(): Promise<string> {
  const name = `sheaf_j_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  await admin.query(`create database ${name}`);
  await admin.end();
  made.push(name);
  const url = withDatabase(mysqlUrl, name);
  await withMysql(url, async (sql) => {
    for (const statement of statements) await sql.query(statement);
    await install(sql, { shard: fixtureShard });
  });
  return url;
}

/** `sheaf migrate --all --apply` on the database behind `url`. */
export const apply = (url: string): string[] => ['migrate', '--url', url, '--all', '--apply'];

/**
 * How many steps the `--all` plan has (changing nothing): in all, dropping foreign keys (they come
 * first) and creating sheaf's triggers (they come last).
 */
interface PlanShape {
  readonly total: number;
  readonly drops: number;
  readonly triggers: number;
}

async function planShape(url: string): Promise<PlanShape> {
  const run = await runSheaf(['migrate', '--url', url, '--all', '--json']);
  const steps = (JSON.parse(run.stdout) as { steps: { effect: { kind: string; present?: boolean }[] }[] }).steps;
  return {
    total: steps.length,
    drops: steps.filter((step) => step.effect[0]?.kind === 'foreign keys' && !step.effect[0].present).length,
    triggers: steps.filter((step) => step.effect[0]?.kind === 'trigger').length,
  };
}

/** What the journal tests start from: a journal database, its schema as loaded and the plan's shape. */
export async function journalFixture(): Promise<PlanShape & { url: string; original: Schema }> {
  const url = await journalDatabase();
  const original = await schemaOf(url);
  return { url, original, ...(await planShape(url)) };
}

/** What a `sheaf` process did: its exit code, or the signal that ended it. */
export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../packages/cli/bin/sheaf.js', import.meta.url));

/**
 * Runs the built `sheaf` bin (as run-sheaf.ts does) and resolves however it ended, killed included;
 * `failpoint` sets SHEAF_MIGRATE_FAILPOINT. `started` gets the child, to signal it from outside.
 */
export function runSheaf(
  args: readonly string[],
  failpoint?: string,
  started?: (child: ReturnType<typeof execFile>) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, DATABASE_URL: '', SHEAF_MIGRATE_FAILPOINT: failpoint ?? '' };
    const child = execFile(process.execPath, [bin, ...args], { cwd: root, env }, (_, stdout, stderr) => {
      resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr });
    });
    started?.(child);
  });
}

/** The journal's latest row (in the state database beside the application's), as the tests look at it. */
export async function journalRow(
  url: string,
): Promise<{ id: number; state: string; steps_done: number; running_step: number | null }> {
  return withMysql(url, async (sql) => {
    const journal = (await mysqlStateOf(sql)).in('sheaf_migrations');
    const [row] = await sql.query<{ id: number; state: string; steps_done: number; running_step: number | null }>(
      `select id, state, steps_done, running_step from ${journal} order by id desc limit 1`,
    );
    if (!row) throw new Error(`no journal row in ${url}`);
    return row;
  });
}

/** Everything the schema and data consist of, without the database's name, to compare two databases. */
export interface Schema {
  readonly tables: Record<string, string>;
  readonly triggers: readonly Record<string, unknown>[];
  readonly foreignKeys: readonly Record<string, unknown>[];
  readonly data: Record<string, string>;
}

/** SHOW CREATE TABLE of every table, every trigger (order and body), every foreign key and each table's fingerprint. */
export function schemaOf(url: string): Promise<Schema> {
  return withMysql(url, async (sql) => {
    const tables = await userTables(sql);
    const ddl: Record<string, string> = {};
    for (const table of tables) {
      const [row] = await sql.query<Record<string, string>>(`show create table ${sql.dialect.quoteIdent(table.name)}`);
      ddl[table.name] = String(row?.['Create Table']);
    }
    const data = Object.fromEntries(
      (await fingerprintMysql(sql, tables)).map((f) => [f.table.name, `${f.rows} rows, checksum ${f.checksum}`]),
    );
    return { tables: ddl, triggers: await triggers(sql), foreignKeys: await foreignKeys(sql), data };
  });
}

/**
 * The schema with each table's index lines sorted: re-adding a foreign key makes MariaDB re-create
 * the index named after it at the end of the list (the migration itself does so too), so after
 * --abort only the order of those lines may differ from the original.
 */
export function withIndexesSorted(schema: Schema): Schema {
  const sorted = (ddl: string) => {
    const lines = ddl.split('\n');
    const isKey = (line: string) => /^ {2}(UNIQUE |FULLTEXT |SPATIAL )?KEY /.test(line);
    const keys = lines
      .filter(isKey)
      .map((line) => line.replace(/,$/, ''))
      .sort();
    return lines.map((line) => (isKey(line) ? (keys.shift() as string) : line.replace(/,$/, ''))).join('\n');
  };
  return {
    ...schema,
    tables: Object.fromEntries(Object.entries(schema.tables).map(([name, ddl]) => [name, sorted(ddl)])),
  };
}

function triggers(sql: SqlExecutor) {
  return sql.query(
    // The triggers name this database's sheaf_<database>: the same for databases of other names.
    `select trigger_name, event_object_table, action_timing, event_manipulation, action_order,
       replace(action_statement, concat('\`sheaf_', database(), '\`.'), '\`sheaf_<database>\`.') as action_statement
     from information_schema.triggers where trigger_schema = database() order by trigger_name`,
  );
}
