import { decodeId } from '@sheaf/core';
import { expect, it } from 'vitest';
import { applyMigration, touchedTables } from '../../packages/migrate/src/apply/apply.js';
import { fingerprintPostgres } from '../../packages/migrate/src/apply/fingerprint-postgres.js';
import { inspectPostgres } from '../../packages/migrate/src/inspect/inspect-postgres.js';
import { renderPostgres } from '../../packages/migrate/src/plan/render-postgres.js';
import { describeEachTarget } from '../support/database.js';
import { columnTypes, fixtureDatabase, fixtureShard, snapshot, withSql } from './migrate-postgres-support.js';
import { sheaf } from './run-sheaf.js';

// Each test boots PGlite in several processes (1 to 2 s each on a busy machine).
const timeout = 120_000;

/** Every key column of the fixture, and the columns referencing them: bigint after the migration. */
const widened = [
  'public.tenants.id',
  'public.customers.id',
  'public.customers.tenant_id',
  'public.categories.id',
  'public.categories.parent_id',
  'public.products.id',
  'public.products.category_id',
  'public.orders.id',
  'public.orders.tenant_id',
  'public.orders.customer_id',
  'public.order_lines.id',
  'public.order_lines.order_id',
  'public.order_lines.tenant_id',
  'public.order_lines.product_id',
  'public.employees.id',
  'public.employees.manager_id',
  'public.shipments.order_id',
  'public.shipments.shipped_by',
  'public.order_tags.order_id',
  'public.api_tokens.customer_id',
  'my schema.a"; drop table x; --.id',
  'my schema.a"; drop table x; --.customer_id',
];
const migratedKeys = ['tenants', 'customers', 'categories', 'products', 'orders', 'order_lines', 'employees'];

describeEachTarget(
  'sheaf migrate on PostgreSQL',
  (target) => {
    it(
      'prints the plan and the SQL, as text and as --json, and changes nothing',
      async () => {
        const url = await fixtureDatabase(target);
        const before = await withSql(url, columnTypes);
        const text = await sheaf(['migrate', '--url', url, '--all']);
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toMatch(/^Plan: move 10 tables onto sheaf ids \(71 statements, one transaction\)$/m);
        expect(text.stdout).toMatch(/^ {2}public\.categories +id integer +identity always +40 +40$/m);
        expect(text.stdout).toMatch(/^ {2}public\.tenants +id smallint +the application +5 +5$/m);
        expect(text.stdout).toMatch(
          /^ {2}order_lines_order_fk: public\.order_lines \(order_id, tenant_id\) → public\.orders \(id, tenant_id\)$/m,
        );
        expect(text.stdout).toContain('  table public.api_tokens has a primary key id of type uuid');
        expect(text.stdout).toContain('  table public.order_tags has a composite primary key (order_id, tag)');
        expect(text.stdout).toMatch(/^-- \[36\/71\] alter table public\.orders: id, customer_id, tenant_id → bigint$/m);
        expect(text.stdout).toMatch(/^begin;$[\s\S]*^commit;$/m);

        const json = await sheaf(['migrate', '--url', url, '--all', '--json']);
        const plan = JSON.parse(json.stdout);
        expect(plan.dialect).toBe('postgres');
        expect(
          plan.columns
            .map(
              (c: { table: { schema: string; name: string }; column: string }) =>
                `${c.table.schema}.${c.table.name}.${c.column}`,
            )
            .sort(),
        ).toEqual([...widened].sort());
        const composite = plan.foreignKeys.find((fk: { name: string }) => fk.name === 'order_lines_order_fk');
        expect(composite).toMatchObject({ columns: ['order_id', 'tenant_id'], referencedColumns: ['id', 'tenant_id'] });
        expect(composite.definition).toBe(
          'FOREIGN KEY (order_id, tenant_id) REFERENCES public.orders(id, tenant_id) ON DELETE CASCADE',
        );
        // Re-created in dependency order: big_orders reads order_totals.
        const recreated = plan.dependents
          .filter((d: { recreate: boolean }) => d.recreate)
          .map((d: { kind: string; name: { name: string } }) => `${d.kind} ${d.name.name}`);
        expect(recreated).toEqual([
          'materialized view customer_stats',
          'index customer_stats_customer_idx',
          'view order_totals',
          'view big_orders',
          'trigger orders_customer_changed',
        ]);
        expect(plan.tables.find((t: { table: { name: string } }) => t.table.name === 'orders')).toMatchObject({
          generator: { kind: 'sequence', sequence: { schema: 'public', name: 'orders_id_seq' }, owned: true },
          maxId: '400',
          rowCount: '400',
        });
        expect(BigInt(plan.sheafFloor)).toBeGreaterThan(1n << 50n);
        expect(plan.steps).toHaveLength(71);
        expect(await withSql(url, columnTypes)).toEqual(before);
      },
      timeout,
    );

    it(
      '--apply: bigint keys defaulting to sheaf.next_id(), sequences gone, every row and relation intact',
      async () => {
        const url = await fixtureDatabase(target);
        const before = await withSql(url, snapshot);
        const run = await sheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(/^\[36\/71\] alter table public\.orders: id, customer_id, tenant_id → bigint$/m);
        expect(run.stdout).toMatch(
          /^migrated 10 tables in [\d.]+ s; verified 12 tables: row counts and checksums unchanged/m,
        );

        await withSql(url, async (sql) => {
          const types = await columnTypes(sql);
          for (const column of widened) expect(types[column], column).toBe('bigint');
          expect(types['public.products.price_cents']).toBe('integer');
          expect(await snapshot(sql)).toEqual(before);
          const defaults = await sql.query<{ table_name: string; column_default: string }>(
            `select table_name, column_default from information_schema.columns
             where table_schema = 'public' and column_name = 'id' and table_name = any($1)`,
            [migratedKeys],
          );
          expect(defaults.map((row) => row.column_default)).toEqual(migratedKeys.map(() => 'sheaf.next_id()'));
          const sequences = await sql.query(
            "select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where relkind = 'S' and nspname <> 'sheaf'",
          );
          expect(sequences).toEqual([]);
          await checkNewRows(sql);
        });
        const again = await sheaf(['migrate', '--url', url, '--all']);
        expect(again.stdout).toMatch(/^Nothing to migrate\.$/m);
      },
      timeout,
    );

    it(
      'quotes every identifier: the table named a"; drop table x; -- migrates alone and x survives',
      async () => {
        const url = await fixtureDatabase(target);
        const run = await sheaf(['migrate', '--url', url, '--table', 'my schema.a"; drop table x; --', '--apply']);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain('[3/4] alter table "my schema"."a""; drop table x; --": id → bigint');
        await withSql(url, async (sql) => {
          expect(await sql.query('select note from x')).toEqual([{ note: 'still here' }]);
          const types = await columnTypes(sql);
          expect(types['my schema.a"; drop table x; --.id']).toBe('bigint');
          // Referencing nothing that moved, customers keeps its key.
          expect(types['public.customers.id']).toBe('integer');
          const [row] = await sql.query<{ id: string }>(
            `insert into "my schema"."a""; drop table x; --" (customer_id, label) values (3, 'new') returning id::text`,
          );
          expect(decodeId(row!.id).shardId).toBe(fixtureShard);
        });
      },
      timeout,
    );

    it(
      'exits 1 naming unknown tables, uuid and composite keys, keys above the floor and a missing install',
      async () => {
        const url = await fixtureDatabase(target);
        const refusal = async (args: string[], message: RegExp) => {
          const run = await sheaf(['migrate', '--url', url, ...args]);
          expect(run.code, run.stderr).toBe(1);
          expect(run.stderr).toMatch(message);
        };
        await refusal(
          ['--table', 'ordrs'],
          /^sheaf: no table "ordrs" on the search path \(public\); nearest: public\.orders, .* \(UNKNOWN_TABLE\)\n$/,
        );
        await refusal(
          ['--table', 'nope.orders'],
          /^sheaf: no table "nope\.orders"; nearest: public\.orders.* \(UNKNOWN_TABLE\)$/m,
        );
        await refusal(
          ['--table', 'orders', '--table', 'api_tokens'],
          /^sheaf: table public\.api_tokens has a primary key id of type uuid: sheaf migrates integer keys only \(smallint, integer, bigint\) \(UNSUPPORTED_KEY\)$/m,
        );
        await refusal(
          ['--table', 'public.order_tags'],
          /^sheaf: table public\.order_tags has a composite primary key \(order_id, tag\): sheaf migrates single-column integer keys only \(UNSUPPORTED_KEY\)$/m,
        );
        await refusal(['--table', 'x'], /^sheaf: table public\.x has no primary key \(UNSUPPORTED_KEY\)$/m);
        await withSql(url, async (sql) => {
          await sql.query('create table imported (id bigint primary key)');
          await sql.query('insert into imported values (1), (9000000000000000000)');
          await sql.query('create table counted (id bigserial primary key)');
          await sql.query("select setval('counted_id_seq', 8000000000000000000)");
        });
        await refusal(
          ['--table', 'imported', '--table', 'counted'],
          /^sheaf: public\.counted has its sequence public\.counted_id_seq at 8000000000000000000; public\.imported holds keys up to 9000000000000000000: at or above \d+ \(the first sheaf id of 20\d\d-[\d-]+T[\d:.]+Z\); new ids could collide with these rows \(KEYS_ABOVE_FLOOR\)$/m,
        );
        expect((await sheaf(['uninstall', '--url', url])).code).toBe(0);
        await refusal(
          ['--all'],
          /^sheaf: sheaf is not installed in database \w+ \(function sheaf\.next_id\(\) does not exist\); run `sheaf install` \(NOT_INSTALLED\)$/m,
        );
      },
      timeout,
    );

    it(
      'exits 2 on usage errors before connecting',
      async () => {
        const usage = async (args: string[], message: string) => {
          const run = await sheaf(['migrate', ...args]);
          expect(run.code, run.stderr).toBe(2);
          expect(run.stderr).toContain(message);
        };
        await usage(
          ['--url', 'postgres://nobody@127.0.0.1:1/none'],
          'name the tables: --table <name> (repeatable) or --all',
        );
        await usage(
          ['--url', 'postgres://nobody@127.0.0.1:1/none', '--all', '--table', 't'],
          '--table and --all cannot be combined',
        );
        await usage(
          ['--url', 'postgres://x@127.0.0.1:1/n', '--all', '--format', 'xml', '--out', 'd'],
          '--format must be one of sql, prisma, knex, drizzle, not "xml"',
        );
        await usage(['--url', 'postgres://x@127.0.0.1:1/n', '--all', '--format', 'knex'], '--format needs --out <dir>');
        await usage(['--url', 'mysql://x@127.0.0.1:1/n', '--all', '--online'], '--online is PostgreSQL only');
        const help = await sheaf(['migrate', '--help']);
        expect(help.stdout).toMatch(/^Usage: sheaf migrate /);
      },
      timeout,
    );

    it(
      'rolls back with VERIFY_FAILED when the data changes during --apply (an event trigger rewrites a row on ALTER TABLE)',
      async () => {
        const url = await fixtureDatabase(target);
        const before = await withSql(url, async (sql, raw) => {
          await raw(`
            create function stamp_tenant() returns event_trigger language plpgsql as $$
            begin
              update public.tenants set name = name || '!' where id = 1;
            end
            $$;
            create event trigger stamp_on_alter on ddl_command_end when tag in ('ALTER TABLE')
              execute function stamp_tenant();`);
          return snapshot(sql);
        });
        const run = await sheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /^sheaf: verification failed, rolled back: public\.tenants had 5 rows with checksum \d+, now 5 rows with checksum \d+ \(VERIFY_FAILED\)$/m,
        );
        await withSql(url, async (sql) => {
          expect(await snapshot(sql)).toEqual(before);
          expect((await columnTypes(sql))['public.orders.id']).toBe('integer');
        });
      },
      timeout,
    );

    // Deleting employee 60 also sets shipments.shipped_by to null (ON DELETE SET NULL): both are named.
    it(
      'applyMigration verifies: a step that deletes a row fails with VERIFY_FAILED and is rolled back',
      async () => {
        const url = await fixtureDatabase(target);
        await withSql(url, async (sql) => {
          const inspection = await inspectPostgres(sql, { tables: ['employees'] });
          const migration = renderPostgres(inspection);
          const sabotaged = {
            ...migration,
            steps: [...migration.steps, { sql: 'delete from employees where id = 60', describe: 'delete a row' }],
          };
          const tables = touchedTables(inspection);
          const before = await fingerprintPostgres(sql, tables);
          const lines: string[] = [];
          const apply = applyMigration(sql, sabotaged, {
            tables,
            fingerprint: fingerprintPostgres,
            progress: (line) => lines.push(line),
          });
          await expect(apply).rejects.toMatchObject({
            code: 'VERIFY_FAILED',
            message: expect.stringMatching(
              /^sheaf: verification failed, rolled back: public\.employees had 60 rows with checksum \d+, now 59 rows with checksum \d+; public\.shipments had 133 rows with checksum \d+, now 133 rows with checksum \d+$/,
            ),
          });
          expect(lines.at(-2)).toBe(`[${sabotaged.steps.length}/${sabotaged.steps.length}] delete a row\n`);
          expect(await fingerprintPostgres(sql, tables)).toEqual(before);
          expect((await columnTypes(sql))['public.employees.id']).toBe('integer');
        });
      },
      timeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);

/** New rows get sheaf ids of the fixture's shard, reference old rows, and cascade like before. */
async function checkNewRows(sql: import('@sheaf/core').SqlExecutor): Promise<void> {
  const [customer] = await sql.query<{ id: string }>(
    "insert into customers (tenant_id, email) values (2, 'new@example.com') returning id::text",
  );
  const [order] = await sql.query<{ id: string }>(
    'insert into orders (tenant_id, customer_id) values (2, $1), (2, 7) returning id::text',
    [customer!.id],
  );
  const [line] = await sql.query<{ id: string }>(
    'insert into order_lines (order_id, tenant_id, product_id, quantity) values ($1, 2, 150, 2) returning id::text',
    [order!.id],
  );
  const [category] = await sql.query<{ id: string }>(
    "insert into categories (parent_id, name) values (1, 'new') returning id::text",
  );
  for (const id of [customer!.id, order!.id, line!.id, category!.id]) {
    expect(decodeId(id).shardId).toBe(fixtureShard);
    expect(BigInt(id)).toBeGreaterThan(1200n);
  }
  const [total] = await sql.query<{ total_cents: string }>(
    'select total_cents::text from order_totals where order_id = $1',
    [order!.id],
  );
  expect(total).toBeDefined();
  // ON DELETE CASCADE survived the re-created constraint: an old order takes its lines with it.
  await sql.query('delete from orders where id = 4');
  expect(await sql.query('select 1 from order_lines where order_id = 4')).toEqual([]);
  expect(await sql.query('select 1 from order_tags where order_id = 4')).toEqual([]);
  // The column trigger is back: changing a customer touches updated_at.
  const [touched] = await sql.query<{ changed: boolean }>(
    "update orders set customer_id = 10, updated_at = '2000-01-01' where id = 8 returning updated_at > '2001-01-01' as changed",
  );
  expect(touched?.changed).toBe(true);
  const [view] = await sql.query<{ acl: string; comment: string }>(
    "select relacl::text as acl, obj_description(oid, 'pg_class') as comment from pg_class where relname = 'order_totals'",
  );
  expect(view?.acl).toMatch(/[{,]=r\//);
  expect(view?.comment).toBe('order totals in cents');
}
