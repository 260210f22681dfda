import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeId, type SqlExecutor } from '@sheaf/core';
import { drizzle } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import knexFactory from 'knex';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyMigration } from '../../packages/migrate/src/apply/apply.js';
import { fingerprintMysql } from '../../packages/migrate/src/apply/fingerprint-mysql.js';
import { describeTargets } from '../support/database.js';
import {
  columnTypes,
  fixtureDatabase,
  fixtureShard,
  foreignKeys,
  loadFixture,
  nasty,
  snapshot,
  userTables,
  withMysql,
} from './migrate-mysql-support.js';
import { sheaf } from './run-sheaf.js';

// Each test runs the CLI as several processes, each loading the TypeScript sources.
const cliTimeout = 120_000;

const migrated = ['a`; drop table x; --', 'audit_log', 'categories', 'countries', 'customers', 'employees']
  .concat(['order_lines', 'orders', 'products', 'shipments', 'tenants', 'x'])
  .sort();
// Keys, then the columns that reference them: composite (order_lines.tenant_id through orders.tenant_id), self, chains.
const widened = [
  ...migrated.filter((table) => table !== 'shipments').map((table) => `${table}.id`),
  `${nasty}.order_id`,
  'categories.parent_id',
  'coupons.customer_id',
  'customers.country_id',
  'customers.tenant_id',
  'employees.manager_id',
  'employees.tenant_id',
  'order_lines.order_id',
  'order_lines.product_id',
  'order_lines.tenant_id',
  'orders.customer_id',
  'orders.tenant_id',
  'product_tags.product_id',
  'products.category_id',
  'shipments.order_id',
];

// The view on a view, as text: the driver returns bigint as strings and int as numbers.
const totalsSql =
  "select concat_ws(' ', customer_id, order_count, spent) as line from customer_totals order by customer_id";

interface Plan {
  tables: { table: { name: string } }[];
  columns: { table: { name: string }; column: string }[];
  foreignKeys: { name: string; columns: string[]; definition: string }[];
  dependents: { kind: string; name: { name: string }; recreate: boolean }[];
  skipped: { table: { name: string }; reason: string }[];
  steps: { sql: string }[];
  transactional: boolean;
}

async function plan(url: string, args: readonly string[] = ['--all']): Promise<Plan> {
  const run = await sheaf(['migrate', '--url', url, ...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Plan;
}

describeTargets(
  'sheaf migrate on MySQL/MariaDB',
  (db) => {
    let url = '';
    beforeAll(async () => {
      url = db().url as string;
      await loadFixture(url);
    });

    it(
      'prints a plan and --json, changing nothing',
      async () => {
        const before = await withMysql(url, snapshot);
        const text = await sheaf(['migrate', '--url', url, '--all']);
        expect(text.code).toBe(0);
        expect(text.stdout).toMatch(/^Plan: move 12 tables onto sheaf ids/);
        expect(text.stdout).toContain(
          'create trigger `employees_sheaf_id` before insert on `employees` for each row precedes `employees_badge`',
        );

        const json = await plan(url);
        expect(json.transactional).toBe(false);
        expect(json.tables.map((t) => t.table.name).sort()).toEqual(migrated);
        expect(json.columns.map((c) => `${c.table.name}.${c.column}`).sort()).toEqual([...widened].sort());
        expect(json.skipped.map((s) => s.table.name).sort()).toEqual(['coupons', 'product_tags']);
        const composite = json.foreignKeys.find((fk) => fk.name === 'order_lines_order');
        expect(composite?.columns).toEqual(['order_id', 'tenant_id']);
        expect(composite?.definition).toBe(
          'foreign key (`order_id`, `tenant_id`) references `orders` (`id`, `tenant_id`) on delete cascade on update cascade',
        );
        const views = json.dependents.filter((d) => d.kind === 'view').map((d) => [d.name.name, d.recreate]);
        expect(views).toEqual([
          ['order_totals', false],
          ['customer_totals', false],
        ]);
        expect(json.dependents.some((d) => d.kind === 'trigger' && d.name.name === 'orders_audit')).toBe(true);
        expect(await withMysql(url, snapshot)).toEqual(before);
      },
      cliTimeout,
    );

    it(
      'refuses unknown tables, unsupported keys and keys at or above the floor, changing nothing',
      async () => {
        await withMysql(url, async (sql) => {
          await sql.query('create table far (id bigint not null auto_increment primary key)');
          await sql.query('insert into far values (4611686018427387904)');
          await sql.query(
            'create table far_counter (id bigint not null auto_increment primary key) auto_increment = 4611686018427387904',
          );
        });
        const before = await withMysql(url, snapshot);
        const refusals: [string[], RegExp][] = [
          [
            ['--table', 'ordrs'],
            /^sheaf: no table "ordrs" in database \w+ \(tables there, nearest first: orders, .*\) \(UNKNOWN_TABLE\)\n$/,
          ],
          [
            ['--table', 'coupons'],
            /^sheaf: table \w+\.coupons has a primary key code of type varchar\(32\): sheaf migrates integer keys only .*\(UNSUPPORTED_KEY\)\n$/,
          ],
          [
            ['--table', 'product_tags'],
            /composite primary key \(product_id, tag\): sheaf migrates single-column integer keys only \(UNSUPPORTED_KEY\)\n$/,
          ],
          [
            ['--table', 'orders', '--table', 'far'],
            /\.far holds keys up to 4611686018427387904; \w+\.far has its AUTO_INCREMENT counter at 4611686018427387905: at or above \d+ \(the first sheaf id of 20\d\d-.*Z\); new ids could collide with these rows \(KEYS_ABOVE_FLOOR\)\n$/,
          ],
          [
            ['--table', 'far_counter'],
            /far_counter has its AUTO_INCREMENT counter at 4611686018427387904: at or above .*\(KEYS_ABOVE_FLOOR\)\n$/,
          ],
        ];
        try {
          for (const [args, message] of refusals) {
            const run = await sheaf(['migrate', '--url', url, ...args, '--apply']);
            expect(run.stderr).toMatch(message);
            expect(run.code).toBe(1);
          }
          expect(await withMysql(url, snapshot)).toEqual(before);
        } finally {
          await withMysql(url, (sql) => sql.query('drop table far, far_counter'));
        }
      },
      cliTimeout,
    );

    it('names each table whose rows or checksum changed when verification fails', async () => {
      await withMysql(url, async (sql) => {
        const tables = await userTables(sql);
        const steps = [
          { sql: 'alter table tenants modify name varchar(120) not null', describe: 'a change that keeps the data' },
          { sql: "update countries set name = 'République française' where id = 250", describe: 'a change to data' },
          { sql: 'delete from x where id = 5', describe: 'a lost row' },
        ];
        const apply = applyMigration(
          sql,
          { dialect: 'mysql', steps, transactional: false },
          {
            tables,
            fingerprint: fingerprintMysql,
            progress: () => undefined,
          },
        );
        await expect(apply).rejects.toMatchObject({
          code: 'VERIFY_FAILED',
          message: expect.stringMatching(
            /^sheaf: verification failed, the statements had committed as they ran: \w+\.countries had 10 rows with checksum \d+, now 10 rows with checksum \d+; \w+\.x had 5 rows with checksum \d+, now 4 rows with checksum \d+$/,
          ),
        });
        await sql.query("update countries set name = 'France' where id = 250");
        await sql.query("insert into x (id, label) values (5, 'five')");
        await sql.query('alter table tenants modify name varchar(100) not null');
      });
    });

    it(
      'applies --all: bigint keys, sheaf triggers first, every row and relation kept, new rows on sheaf ids',
      async () => {
        const state = await withMysql(url, async (sql) => ({
          tables: await userTables(sql),
          types: await columnTypes(sql),
          foreignKeys: await foreignKeys(sql),
          totals: await sql.query(totalsSql),
        }));
        const before = await withMysql(url, (sql) => fingerprintMysql(sql, state.tables));
        const run = await sheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(run.code).toBe(0);
        expect(run.stderr).toMatch(/^fingerprinting 14 tables before the migration\n\[1\/38\] /);
        expect(run.stdout).toMatch(
          /migrated 12 tables in [\d.]+ s; verified 14 tables: row counts and checksums unchanged/,
        );

        await withMysql(url, async (sql) => {
          expect(await fingerprintMysql(sql, state.tables)).toEqual(before);
          const types = await columnTypes(sql);
          // Views are resolved again on use: their key columns follow the tables without re-creation.
          const viewKeys = ['order_totals.order_id', 'order_totals.tenant_id', 'order_totals.customer_id'];
          const bigint = [...widened, ...viewKeys, 'customer_totals.customer_id'];
          for (const [column, type] of Object.entries(state.types)) {
            expect([column, types[column]]).toEqual([column, bigint.includes(column) ? 'bigint(20)' : type]);
          }
          expect(await foreignKeys(sql)).toEqual(state.foreignKeys);
          expect(await sql.query(totalsSql)).toEqual(state.totals);
          await checkColumnAttributes(sql);
          await checkTriggers(sql, 'applied');
          await checkNewRows(sql);
        });
        // Run again: every table is on sheaf ids now, nothing left to do.
        const again = await plan(url);
        expect(again.tables).toEqual([]);
        expect(again.steps).toEqual([]);
        expect(again.skipped.filter((s) => /already gives id sheaf ids/.test(s.reason))).toHaveLength(12);
      },
      cliTimeout,
    );
  },
  { only: ['mariadb'] },
);

async function checkColumnAttributes(sql: SqlExecutor): Promise<void> {
  const rows = await sql.query<{ name: string; extra: string; col_default: string | null; col_comment: string }>(
    `select concat(table_name, '.', column_name) as name, extra, column_default as col_default,
       column_comment as col_comment
     from information_schema.columns where table_schema = database()
       and concat(table_name, '.', column_name) in ('customers.id', 'order_lines.product_id', 'countries.id')
     order by 1`,
  );
  expect(rows).toEqual([
    { name: 'countries.id', extra: '', col_default: null, col_comment: '' },
    { name: 'customers.id', extra: 'auto_increment', col_default: null, col_comment: 'customer number' },
    { name: 'order_lines.product_id', extra: '', col_default: '0', col_comment: '' },
  ]);
}

async function checkTriggers(sql: SqlExecutor, how: 'applied' | 'from files' = 'from files'): Promise<void> {
  const rows = await sql.query<{ name: string; table_name: string; action_order: string; body: string; db: string }>(
    `select trigger_name as name, event_object_table as table_name, action_order, action_statement as body,
       database() as db
     from information_schema.triggers
     where trigger_schema = database() and action_timing = 'BEFORE' and event_manipulation = 'INSERT'
     order by event_object_table, action_order`,
  );
  const first = rows.filter((row) => Number(row.action_order) === 1);
  expect(first.map((row) => row.table_name).sort()).toEqual(migrated);
  expect(first.every((row) => row.name === `${row.table_name}_sheaf_id`)).toBe(true);
  // Applied by sheaf migrate, they call sheaf's own function, never the forward the database's owner
  // could replace; migration files may run in databases of other names and call the forward.
  const called = (db: string) => (how === 'applied' ? `\`sheaf_${db}\`.sheaf_next_id()` : '= sheaf_next_id()');
  for (const row of first) expect(row.body).toContain(called(row.db));
  expect(rows.filter((row) => Number(row.action_order) === 2).map((row) => row.name)).toEqual([
    `${nasty}_body`,
    'employees_badge',
    'order_lines_price',
  ]);
}

/** New rows take sheaf ids of the fixture's shard, reference old rows, and the old triggers see the new ids. */
async function checkNewRows(sql: SqlExecutor): Promise<void> {
  const [floor] = await sql.query<{ id: string }>(
    'select cast(sheaf_id_floor(utc_timestamp(3) - interval 1 minute) as char) as id',
  );
  const sheafId = (id: unknown) => {
    expect(BigInt(String(id))).toBeGreaterThan(BigInt(floor?.id ?? '0'));
    expect(decodeId(String(id)).shardId).toBe(fixtureShard);
    return String(id);
  };
  const [old] = await sql.query<{ id: string; tenant_id: string; customer_id: string }>(
    'select id, tenant_id, customer_id from orders order by id limit 1',
  );
  await sql.query('insert into orders (tenant_id, customer_id, placed_at) values (?, ?, now())', [
    old?.tenant_id,
    old?.customer_id,
  ]);
  const [order] = await sql.query<{ id: string }>('select max(id) as id from orders');
  const orderId = sheafId(order?.id);
  await sql.query(
    'insert into order_lines (order_id, tenant_id, product_id, quantity, unit_price) values (?, ?, 1, 2, null)',
    [orderId, old?.tenant_id],
  );
  await sql.query(`insert into ${sql.dialect.quoteIdent(nasty)} (order_id, body) values (?, '  new  '), (?, 'old')`, [
    orderId,
    old?.id,
  ]);
  await sql.query("update orders set status = 'paid' where id = ?", [orderId]);
  const [audit] = await sql.query<{ id: string; entity_id: string }>(
    'select id, entity_id from audit_log order by id desc limit 1',
  );
  sheafId(audit?.id);
  expect(audit?.entity_id).toBe(orderId);
  await sql.query("insert into employees (manager_id, tenant_id, name, badge) values (1, 1, 'New', '')");
  const [employee] = await sql.query<{ id: string; badge: string }>(
    'select id, badge from employees order by id desc limit 1',
  );
  expect(employee?.badge).toBe(`E-${sheafId(employee?.id)}`);
  await sql.query("insert into countries (code, name) values ('NZ', 'New Zealand'), ('PT', 'Portugal')");
  await sql.query("insert into countries (id, code, name) values (554, 'NO', 'Norway')");
  const countries = await sql.query<{ id: string }>(
    "select id from countries where code in ('NZ', 'PT', 'NO') order by code",
  );
  expect(countries[0]?.id).toBe('554');
  sheafId(countries[1]?.id);
  sheafId(countries[2]?.id);
  // Cascades still reach old and new rows: deleting an old order takes its lines and notes with it.
  await sql.query('delete from orders where id = ?', [old?.id]);
  const [left] = await sql.query<{ n: string }>(
    `select (select count(*) from order_lines where order_id = ?) + (select count(*) from ${sql.dialect.quoteIdent(nasty)} where order_id = ?) as n`,
    [old?.id, old?.id],
  );
  expect(Number(left?.n)).toBe(0);
  expect(await sql.query("select label from x where label = 'one'")).toEqual([{ label: 'one' }]);
}

describeTargets(
  'sheaf migrate --format on MySQL/MariaDB, applied with each tool',
  () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    /** Writes the `--all` migration in `format` for a fresh fixture database; returns both. */
    async function generate(
      format: string,
    ): Promise<{ url: string; out: string; before: Awaited<ReturnType<typeof snapshot>> }> {
      const url = await fixtureDatabase();
      const out = await mkdtemp(join(tmpdir(), `sheaf-migrate-${format}-`));
      dirs.push(out);
      const run = await sheaf(['migrate', '--url', url, '--all', '--format', format, '--out', out]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return { url, out, before: await withMysql(url, snapshot) };
    }

    /** What every format must leave: the same data, the columns bigint, sheaf ids for new rows. */
    async function verify(url: string, before: Awaited<ReturnType<typeof snapshot>>): Promise<void> {
      await withMysql(url, async (sql) => {
        // The tools' own bookkeeping tables (knex_migrations, __drizzle_migrations) are not compared.
        expect(
          await fingerprintMysql(
            sql,
            before.data.map((fingerprint) => fingerprint.table),
          ),
        ).toEqual(before.data);
        const types = await columnTypes(sql);
        expect(widened.filter((column) => types[column] !== 'bigint(20)')).toEqual([]);
        await checkTriggers(sql);
        await checkNewRows(sql);
      });
    }

    it(
      'knex: knex.migrate.latest with the mysql2 client',
      async () => {
        const { url, out, before } = await generate('knex');
        const knex = knexFactory({ client: 'mysql2', connection: url });
        try {
          const [, applied] = (await knex.migrate.latest({ directory: out })) as [number, string[]];
          expect(applied).toHaveLength(1);
        } finally {
          await knex.destroy();
        }
        await verify(url, before);
      },
      cliTimeout,
    );

    it(
      "drizzle: drizzle-orm's mysql2 migrator",
      async () => {
        const { url, out, before } = await generate('drizzle');
        const connection = await mysql.createConnection({ uri: url });
        try {
          await migrate(drizzle(connection), { migrationsFolder: out });
        } finally {
          await connection.end();
        }
        await verify(url, before);
      },
      cliTimeout,
    );

    it(
      "prisma: the migration.sql as one multi-statement query, as Prisma's migrate engine sends it",
      async () => {
        const { url, out, before } = await generate('prisma');
        const file = await findFile(out, 'migration.sql');
        // The server splits the script, trigger bodies included (docs/migrating-existing-tables.md, Prisma).
        const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
        try {
          const [results] = await connection.query(await readFile(file, 'utf8'));
          expect(results).toHaveLength(38);
        } finally {
          await connection.end();
        }
        await verify(url, before);
      },
      cliTimeout,
    );
  },
  { only: ['mariadb'] },
);

async function findFile(dir: string, name: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found = entries.find((entry) => entry.isFile() && entry.name === name);
  if (!found) throw new Error(`no ${name} under ${dir}`);
  return join(found.parentPath, found.name);
}
