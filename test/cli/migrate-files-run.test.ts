// Every file `sheaf migrate --out` writes runs as-is through the tool it is written for, on each
// server: `--format sql` through psql and the mariadb client, knex and drizzle files through their
// own migrators, Prisma's migration.sql as `prisma migrate deploy` sends it (see migrate-file-runners.ts).
// After each run the data is unchanged (row counts and checksums of every table, hostile names
// included), the foreign keys are all back, the keys are bigint and new rows get sheaf ids.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeId } from '@sheaf/core';
import { afterAll, expect, it } from 'vitest';
import { fingerprintMysql } from '../../packages/migrate/src/apply/fingerprint-mysql.js';
import { describeEachTarget } from '../support/database.js';
import { type FileFormat, type FileRunner, mariadbRunners, postgresRunners } from './migrate-file-runners.js';
import * as my from './migrate-mysql-support.js';
import * as pgFixture from './migrate-postgres-support.js';
import { sheaf } from './run-sheaf.js';

const timeout = 60_000;
const formats: readonly FileFormat[] = ['sql', 'prisma', 'knex', 'drizzle'];
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** What one server needs: a fixture database, what must not change, what must have changed, the runners. */
interface Side {
  fixture(): Promise<string>;
  /** Row counts and checksums of every table and every foreign key: equal before and after. */
  state(url: string): Promise<unknown>;
  checkMigrated(url: string): Promise<void>;
  runners: Record<FileFormat, FileRunner>;
  /** The fixture's hostile table as the files and the plan must show it, and as they must not. */
  shown: string;
  notShown: RegExp;
}

const sheafId = (id: unknown) => expect(decodeId(String(id)).shardId).toBe(pgFixture.fixtureShard);

const postgres: Side = {
  fixture: () => pgFixture.fixtureDatabase('postgres'),
  state: (url) =>
    pgFixture.withSql(url, async (sql) => ({
      data: await pgFixture.snapshot(sql),
      foreignKeys: await sql.query(
        `select conrelid::regclass::text as on_table, conname, pg_get_constraintdef(oid) as definition
         from pg_constraint where contype = 'f' and connamespace in (select oid from pg_namespace where nspname in ('public', 'my schema'))
         order by 1, 2`,
      ),
    })),
  checkMigrated: (url) =>
    pgFixture.withSql(url, async (sql) => {
      const types = await pgFixture.columnTypes(sql);
      const keys = ['public.orders.id', 'public.order_lines.order_id', 'public.customers.tenant_id'];
      const nasty = ['my schema.a"; drop table x; --.id', 'my schema.a"; drop table x; --.customer_id'];
      expect([...keys, ...nasty].map((column) => types[column])).toEqual(Array(5).fill('bigint'));
      const [order] = await sql.query<{ id: string }>(
        'insert into orders (tenant_id, customer_id) values (3, 42) returning id::text as id',
      );
      sheafId(order?.id);
      const [row] = await sql.query<{ id: string }>(
        `insert into "my schema"."a""; drop table x; --" (customer_id, label) values (42, 'new') returning id::text as id`,
      );
      sheafId(row?.id);
    }),
  runners: postgresRunners,
  shown: '"my schema"."a""; drop table x; --"',
  notShown: /`a`/,
};

const mariadb: Side = {
  fixture: () => my.fixtureDatabase(),
  // The migrators' bookkeeping tables (knex_migrations, __drizzle_migrations) appear after: only the fixture's count.
  state: (url) =>
    my.withMysql(url, async (sql) => {
      const tables = (await my.userTables(sql)).filter((t) => !/^(knex_|__drizzle)/.test(t.name));
      return { data: await fingerprintMysql(sql, tables), foreignKeys: await my.foreignKeys(sql) };
    }),
  checkMigrated: (url) =>
    my.withMysql(url, async (sql) => {
      const types = await my.columnTypes(sql);
      const columns = [
        'orders.id',
        'order_lines.order_id',
        'customers.tenant_id',
        `${my.nasty}.id`,
        `${my.nasty}.order_id`,
      ];
      expect(columns.map((column) => types[column])).toEqual(Array(5).fill('bigint(20)'));
      await sql.query(
        'insert into orders (tenant_id, customer_id, placed_at) select tenant_id, id, now() from customers limit 1',
      );
      const [order] = await sql.query<{ id: string }>('select cast(max(id) as char) as id from orders');
      sheafId(order?.id);
      await sql.query(`insert into ${sql.dialect.quoteIdent(my.nasty)} (order_id, body) values (?, 'new')`, [
        order?.id,
      ]);
      const [row] = await sql.query<{ id: string }>(
        `select cast(max(id) as char) as id from ${sql.dialect.quoteIdent(my.nasty)}`,
      );
      sheafId(row?.id);
    }),
  runners: mariadbRunners,
  shown: '`a``; drop table x; --`',
  // A PostgreSQL spelling of a MySQL name: double quotes around it.
  notShown: /"a`; drop table x; --"|"PRIMARY"/,
};

/** Every file under `dir`, as text. */
async function texts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return Promise.all(files.map((file) => readFile(file, 'utf8')));
}

describeEachTarget(
  'sheaf migrate --out: each file run as-is by its tool',
  (target) => {
    const side = target === 'postgres' ? postgres : mariadb;
    for (const format of formats) {
      it(
        `${format}: generated, run by its tool, data and foreign keys kept, keys bigint, new rows on sheaf ids`,
        async () => {
          const url = await side.fixture();
          const before = await side.state(url);
          const out = await mkdtemp(join(tmpdir(), `sheaf-files-${format}-`));
          dirs.push(out);
          const cli = await sheaf(['migrate', '--url', url, '--all', '--format', format, '--out', out]);
          expect(cli.code, cli.stderr).toBe(0);
          const written = (await texts(out)).join('\n');
          for (const text of [written, cli.stdout]) {
            expect(text).toContain(side.shown);
            expect(text).not.toMatch(side.notShown);
          }
          // DELIMITER is a command of the mysql/mariadb client only: a driver would send it to the server.
          const clientOnly = target === 'mariadb' && format === 'sql';
          expect(/^delimiter \$\$$/m.test(written), 'delimiter lines').toBe(clientOnly);
          expect(/^\s*delimiter\b/im.test(written)).toBe(clientOnly);
          await side.runners[format](url, out);
          expect(await side.state(url)).toEqual(before);
          await side.checkMigrated(url);
        },
        timeout,
      );
    }

    it(
      'the SQL printed after the plan (no --out) is the script --format sql writes, for the same client',
      async () => {
        const url = await side.fixture();
        const out = await mkdtemp(join(tmpdir(), 'sheaf-files-printed-'));
        dirs.push(out);
        const written = await sheaf(['migrate', '--url', url, '--all', '--out', out]);
        const printed = await sheaf(['migrate', '--url', url, '--all']);
        expect([written.code, printed.code]).toEqual([0, 0]);
        // The header says when it was generated; the rest is the same text.
        const undated = (text: string) => text.replace(/generated \S+\./, 'generated <time>.');
        const [file] = await texts(out);
        expect(undated(printed.stdout)).toContain(undated(file!));
      },
      timeout,
    );
  },
  { only: ['postgres', 'mariadb'] },
);
