import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { decodeId } from '@sheaf/core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { describeEachTarget } from '../support/database.js';
import { openPgliteDir } from '../support/pglite-template.js';
import {
  columnTypes,
  type DataSnapshot,
  fixtureDatabase,
  fixtureShard,
  snapshot,
  withSql,
} from './migrate-postgres-support.js';
import { sheaf } from './run-sheaf.js';

const timeout = 120_000;
const run = promisify(execFile);
const outDirs: string[] = [];
afterAll(async () => {
  for (const dir of outDirs) await rm(dir, { recursive: true, force: true });
});

async function outDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sheaf-migrate-out-'));
  outDirs.push(dir);
  return dir;
}

/**
 * A fixture database (plus `extraSql`), its data before, and the migration files `sheaf migrate
 * --format` wrote into a new directory.
 */
async function generated(target: string, format: string, prepare?: (out: string) => Promise<void>, extraSql?: string) {
  const url = await fixtureDatabase(target as 'postgres' | 'pglite');
  if (extraSql) await withSql(url, (_sql, raw) => raw(extraSql));
  const before = await withSql(url, snapshot);
  const out = await outDir();
  await prepare?.(out);
  const cli = await sheaf(['migrate', '--url', url, '--all', '--format', format, '--out', out]);
  expect(cli.code, cli.stderr).toBe(0);
  expect(await withSql(url, columnTypes)).toMatchObject({ 'public.orders.id': 'integer' });
  return { url, before, out, stdout: cli.stdout };
}

/** After a format's own tool ran it: the data is unchanged, the keys are bigint and new rows get sheaf ids. */
async function expectMigrated(url: string, before: DataSnapshot): Promise<void> {
  await withSql(url, async (sql) => {
    expect(await snapshot(sql)).toEqual(before);
    const types = await columnTypes(sql);
    expect(types['public.orders.id']).toBe('bigint');
    expect(types['public.order_lines.order_id']).toBe('bigint');
    expect(types['my schema.a"; drop table x; --.customer_id']).toBe('bigint');
    const [row] = await sql.query<{ id: string }>(
      'insert into orders (tenant_id, customer_id) values (3, 42) returning id::text',
    );
    expect(decodeId(row!.id).shardId).toBe(fixtureShard);
  });
}

/**
 * Names knex would read as placeholders: `?` and `??` (bindings), `\\?` (an escaped `?`, whose
 * backslash knex drops), and runs of two and three backslashes before a `?`; with quotes and a
 * newline. Tables in a schema of their own, referencing each other, under a view that quotes them.
 */
const markedNames = ['q?', 'q??', 'a\\?b', 'a\\\\?b', 'a\\\\\\?b', `it's "?"`, 'new\nline\\?'];
const markedView = 'v\\? ??';
const markedViewSql = (() => {
  const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const [first, ...rest] = markedNames.map((name) => `marks.${ident(name)}`);
  return [
    'create schema marks;',
    ...markedNames.map(
      (name, i) =>
        `create table marks.${ident(name)} (id serial primary key, ref integer${i > 0 ? ` references ${first}` : ''});`,
    ),
    ...rest.map((table) => `insert into ${table} (ref) values (null);`),
    `insert into ${first} (ref) values (null);`,
    `create view marks.${ident(markedView)} as select id, ${literal('lit\\?')}::text as ${ident('c\\\\?')},` +
      ` '{"a": 1}'::jsonb ? 'a' as has_a from ${first};`,
    `comment on view marks.${ident(markedView)} is ${literal('note \\? ??')};`,
  ].join('\n');
})();

function knexFor(url: string): Knex {
  if (url.startsWith('pglite:')) {
    const pglite = new PGlite(url.slice('pglite:'.length));
    return knex({ client: ClientPgLite as never, dialect: 'postgres', connection: { pglite } as never });
  }
  return knex({ client: 'pg', connection: url });
}

/** Runs drizzle's own migrator for the target on `folder`. */
async function drizzleMigrate(url: string, folder: string): Promise<void> {
  if (url.startsWith('pglite:')) {
    const pglite = await openPgliteDir(url.slice('pglite:'.length));
    try {
      await migratePglite(drizzlePglite(pglite), { migrationsFolder: folder });
    } finally {
      await pglite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migratePg(drizzlePg(client), { migrationsFolder: folder });
  } finally {
    await client.end();
  }
}

describeEachTarget(
  'sheaf migrate --format, applied by each tool',
  (target) => {
    it(
      'sql: one file in a transaction, run by psql (PGlite: exec)',
      async () => {
        const { url, before, out, stdout } = await generated(target, 'sql');
        const [file] = await readdir(out);
        expect(file).toMatch(/^\d{14}_sheaf_ids\.sql$/);
        expect(stdout).toContain(`wrote sql migration: ${join(out, file!)}`);
        const sql = await readFile(join(out, file!), 'utf8');
        expect(sql).toMatch(/^-- sheaf migrate: integer keys to sheaf ids \(PostgreSQL\)/);
        expect(sql).toMatch(
          /\n\nbegin;\n\n-- \[1\/71\] drop view public\.big_orders \(re-created after\)\ndrop view "public"\."big_orders";\n\n/,
        );
        if (target === 'pglite') await withSql(url, (_sql, raw) => raw(sql));
        else await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(out, file!)]);
        await expectMigrated(url, before);
      },
      timeout,
    );

    it(
      'prisma: prisma/migrations/<timestamp>_sheaf_ids/migration.sql, applied as Prisma does, plus the schema edits',
      async () => {
        const { url, before, out, stdout } = await generated(target, 'prisma');
        const [folder] = await readdir(join(out, 'prisma', 'migrations'));
        expect(folder).toMatch(/^\d{14}_sheaf_ids$/);
        const sql = await readFile(join(out, 'prisma', 'migrations', folder!, 'migration.sql'), 'utf8');
        expect(sql).not.toMatch(/^begin;$/m);
        expect(stdout).toContain('model of public.orders: id BigInt @id @default(dbgenerated("sheaf.next_id()"))');
        expect(stdout).toContain('model of public.categories: parent_id BigInt?');
        // Prisma's migrate deploy sends migration.sql as one script; so do we.
        await withSql(url, (_sql, raw) => raw(sql));
        await expectMigrated(url, before);
      },
      timeout,
    );

    it(
      "knex: a .cjs migration run by knex's migrator, whose down refuses",
      async () => {
        const { url, before, out } = await generated(target, 'knex');
        const [file] = await readdir(out);
        expect(file).toMatch(/^\d{14}_sheaf_ids\.cjs$/);
        const k = knexFor(url);
        try {
          const [, applied] = await k.migrate.latest({ directory: out });
          expect(applied).toEqual([file]);
          await expect(k.migrate.rollback({ directory: out })).rejects.toThrow(
            /sheaf_ids is irreversible: restore from a backup taken before it/,
          );
        } finally {
          await k.destroy();
        }
        await expectMigrated(url, before);
      },
      timeout,
    );

    it(
      'knex: names holding ?, ?? and backslashes before a ? come out of the migration exactly as they were',
      async () => {
        const { url, before, out } = await generated(target, 'knex', undefined, markedViewSql);
        const k = knexFor(url);
        try {
          await k.migrate.latest({ directory: out });
        } finally {
          await k.destroy();
        }
        await expectMigrated(url, before);
        await withSql(url, async (sql) => {
          const relations = await sql.query<{ name: string; kind: string; note: string | null }>(
            `select relname as name, relkind::text as kind, obj_description(oid) as note from pg_class
              where relnamespace = 'marks'::regnamespace and relkind in ('r', 'v')`,
          );
          const tables = relations.filter((r) => r.kind === 'r').map((r) => r.name);
          expect(tables.sort()).toEqual([...markedNames].sort());
          expect(relations.filter((r) => r.kind === 'v')).toEqual([
            { name: markedView, kind: 'v', note: 'note \\? ??' },
          ]);
          const keys = await sql.query<{ tbl: string; col: string; type: string }>(
            `select c.relname as tbl, a.attname as col, format_type(a.atttypid, a.atttypmod) as type
              from pg_attribute a join pg_class c on c.oid = a.attrelid
              where c.relnamespace = 'marks'::regnamespace and c.relkind = 'r' and a.attname in ('id', 'ref')`,
          );
          expect(keys).toHaveLength(2 * markedNames.length);
          // Every key and every reference to one is widened; the first table's `ref` references nothing.
          expect(keys.filter((key) => key.type !== 'bigint')).toEqual([
            { tbl: markedNames[0], col: 'ref', type: 'integer' },
          ]);
          const rows = await sql.query(`select id::text as id, "c\\\\?" as c, has_a from marks."${markedView}"`);
          expect(rows).toEqual([{ id: '1', c: 'lit\\?', has_a: true }]);
        });
      },
      timeout,
    );

    it(
      "drizzle: appended to an existing journal and run by drizzle's migrator after the earlier migration",
      async () => {
        const existing = async (out: string) => {
          await mkdir(join(out, 'meta'));
          await writeFile(join(out, '0000_notes.sql'), 'create table notes (id serial primary key, body text);\n');
          const entry = { idx: 0, version: '7', when: Date.now() - 60_000, tag: '0000_notes', breakpoints: true };
          await writeFile(
            join(out, 'meta', '_journal.json'),
            JSON.stringify({ version: '7', dialect: 'postgresql', entries: [entry] }),
          );
        };
        const { url, before, out } = await generated(target, 'drizzle', existing);
        const journal = JSON.parse(await readFile(join(out, 'meta', '_journal.json'), 'utf8'));
        expect(journal.entries.map((entry: { tag: string }) => entry.tag)).toEqual(['0000_notes', '0001_sheaf_ids']);
        const sql = await readFile(join(out, '0001_sheaf_ids.sql'), 'utf8');
        expect(sql.split('--> statement-breakpoint')).toHaveLength(71);
        await drizzleMigrate(url, out);
        await expectMigrated(url, before);
        await withSql(url, async (sql) =>
          expect(await sql.query('select count(*)::int as n from notes')).toEqual([{ n: 0 }]),
        );
      },
      timeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);
