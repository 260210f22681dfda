import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install, pgExecutor, pgliteExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { afterAll } from 'vitest';
import { fingerprintPostgres } from '../../packages/migrate/src/apply/fingerprint-postgres.js';
import type { TableFingerprint } from '../../packages/migrate/src/model.js';
import { dropPgDatabase } from '../support/drop-pg-database.js';
import { openPgliteDir } from '../support/pglite-template.js';
import { pgUrl, type TargetName, withDatabase } from '../support/targets.js';

const fixture = readFileSync(new URL('../fixtures/migrate/postgres.sql', import.meta.url), 'utf8');
const cleanups: (() => Promise<void>)[] = [];
// Registered by the test file importing this module.
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The shard the fixture databases issue ids for. */
export const fixtureShard = 7;

/**
 * A new database holding the fixture schema and data with sheaf installed (shard 7): a database of
 * its own on the server, a fresh data directory on PGlite. Returns the URL the CLI takes. `script`
 * replaces the shop fixture (test/fixtures/migrate/postgres.sql) with another schema.
 */
export async function fixtureDatabase(target: TargetName, options: FixtureOptions = {}): Promise<string> {
  if (target === 'pglite') return pgliteCopy(options);
  const url = await serverUrl();
  await load(url, options);
  return url;
}

interface FixtureOptions {
  install?: boolean;
  script?: string;
}

async function load(url: string, options: FixtureOptions): Promise<void> {
  await withSql(url, async (sql, raw) => {
    await raw(options.script ?? fixture);
    if (options.install !== false) await install(sql, { shard: fixtureShard });
  });
}

const pgliteOriginals = new Map<string, Promise<string>>();

/**
 * On PGlite each fixture is loaded once per test file and every test gets a copy of its data
 * directory: loading the shop fixture and installing sheaf took 2 to 3 s of WebAssembly, a copy
 * 0.2 s. Copies keep the original's database_id and node identity, as physical clones do: no test
 * here puts two of them side by side.
 */
async function pgliteCopy(options: FixtureOptions): Promise<string> {
  const key = JSON.stringify([options.install !== false, options.script ?? null]);
  let original = pgliteOriginals.get(key);
  if (!original) {
    original = pgliteUrl().then(async (url) => {
      await load(url, options);
      return url;
    });
    pgliteOriginals.set(key, original);
  }
  const from = (await original).slice('pglite:'.length);
  const url = await pgliteUrl();
  execFileSync('cp', ['-a', from, url.slice('pglite:'.length)]);
  return url;
}

async function pgliteUrl(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sheaf-migrate-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return `pglite:${join(dir, 'data')}`;
}

async function serverUrl(): Promise<string> {
  const name = `sheaf_m_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await withAdmin((admin) => admin.query(`create database ${name}`));
  cleanups.push(() => withAdmin((admin) => dropPgDatabase(admin, name)));
  return withDatabase(pgUrl, name);
}

async function withAdmin(work: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** Runs `work` on one connection to the database behind `url`; `raw` runs a multi-statement script. */
export async function withSql<T>(
  url: string,
  work: (sql: SqlExecutor, raw: (script: string) => Promise<unknown>) => Promise<T>,
): Promise<T> {
  if (url.startsWith('pglite:')) {
    const db = await openPgliteDir(url.slice('pglite:'.length));
    try {
      return await work(pgliteExecutor(db), (script) => db.exec(script));
    } finally {
      await db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(pgExecutor(client), (script) => client.query(script));
  } finally {
    await client.end();
  }
}

/** Every table of the fixture, for fingerprints before and after. */
export const fixtureTables = [
  'tenants',
  'customers',
  'categories',
  'products',
  'orders',
  'order_lines',
  'employees',
  'shipments',
  'order_tags',
  'api_tokens',
  'audit_log',
  'x',
].map((name) => ({ schema: 'public', name }));

/** The table whose name would drop `x` if it were spliced into SQL unquoted. */
export const nastyTable = { schema: 'my schema', name: 'a"; drop table x; --' };

/** Row counts and checksums of every fixture table, and the rows each foreign key joins. */
export interface DataSnapshot {
  readonly fingerprints: readonly TableFingerprint[];
  readonly joins: Readonly<Record<string, string>>;
}

const joinSql: Record<string, string> = {
  lines: 'select count(*) from order_lines l join orders o on o.id = l.order_id and o.tenant_id = l.tenant_id',
  products: 'select count(*) from order_lines l join products p on p.id = l.product_id',
  parents: 'select count(*) from categories c join categories p on p.id = c.parent_id',
  managers: 'select count(*) from employees e join employees m on m.id = e.manager_id',
  shipments:
    'select count(*) from shipments s join orders o on o.id = s.order_id join employees e on e.id = s.shipped_by',
  tags: 'select count(*) from order_tags t join orders o on o.id = t.order_id',
  tokens: 'select count(*) from api_tokens t join customers c on c.id = t.customer_id',
  nasty: 'select count(*) from "my schema"."a""; drop table x; --" n join customers c on c.id = n.customer_id',
  bigOrders: "select count(*) || ':' || sum(total_cents) from big_orders",
  stats: 'select sum(orders) from customer_stats',
};

/** What the data looks like: compared before and after a migration, it must not change. */
export async function snapshot(sql: SqlExecutor): Promise<DataSnapshot> {
  const joins: Record<string, string> = {};
  for (const [name, query] of Object.entries(joinSql)) {
    const [row] = await sql.query<Record<string, unknown>>(query);
    joins[name] = String(Object.values(row ?? {})[0]);
  }
  return { fingerprints: await fingerprintPostgres(sql, [...fixtureTables, nastyTable]), joins };
}

/** `schema.table.column` → type, for every integer-ish column of the fixture. */
export async function columnTypes(sql: SqlExecutor): Promise<Record<string, string>> {
  const rows = await sql.query<{ name: string; type: string }>(
    `select table_schema || '.' || table_name || '.' || column_name as name, data_type as type
     from information_schema.columns
     where table_schema in ('public', 'my schema') and data_type in ('smallint', 'integer', 'bigint')
       and table_name not in ('order_totals', 'big_orders')`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.type]));
}
