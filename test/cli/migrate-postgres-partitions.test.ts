import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { SqlExecutor } from '@sheaf/core';
import { expect, it } from 'vitest';
import { fingerprintPostgres } from '../../packages/migrate/src/apply/fingerprint-postgres.js';
import { describeEachTarget } from '../support/database.js';
import { fixtureDatabase, withSql } from './migrate-postgres-support.js';
import { sheaf, sheafJson } from './run-sheaf.js';

const script = readFileSync(new URL('../fixtures/migrate/postgres-partitioned.sql', import.meta.url), 'utf8');
// A few CLI processes per test, PGlite booting in each.
const timeout = 60_000;

const tables = [
  'staff',
  'customer',
  'rental',
  'payment',
  'payment_p2024_01',
  'payment_p2024_02',
  'payment_p2024_03',
  'refund',
  'rental_log',
  'region',
  'store',
].map((name) => ({ schema: 'public', name }));

/** Row counts and checksums of every table and partition, and what the views read. */
async function contents(sql: SqlExecutor): Promise<unknown> {
  const fingerprints = await fingerprintPostgres(sql, tables);
  const [views] = await sql.query(
    `select (select count(*) || ':' || sum(amount) from customer_payments) as payments,
       (select sum(payments) || ':' || sum(total) from customer_totals) as totals`,
  );
  return { fingerprints: fingerprints.map((f) => `${f.table.name}: ${f.rows} ${f.checksum}`), views };
}

/** `table.column type` of every key and reference column, partitions included. */
async function columnTypes(sql: SqlExecutor): Promise<string[]> {
  const rows = await sql.query<{ line: string }>(
    `select table_name || '.' || column_name || ' ' || data_type as line from information_schema.columns
     where table_schema = 'public' and (column_name like '%\\_id' or column_name = 'log_id')
       and table_name not in ('customer_payments', 'customer_totals')
     order by 1`,
  );
  return rows.map((row) => row.line);
}

/** Foreign keys as `table name → referenced`, a partition's copy of its parent's marked `(copy)`. */
async function foreignKeys(sql: SqlExecutor): Promise<string[]> {
  const rows = await sql.query<{ line: string }>(
    `select conrelid::regclass::text || ' ' || conname || ' → ' || confrelid::regclass::text
       || case when conparentid <> 0 then ' (copy)' else '' end as line
     from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace order by 1`,
  );
  return rows.map((row) => row.line);
}

/** The schema as pg_dump prints it, without the random key of its \restrict lines. */
async function schemaDump(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)('pg_dump', ['--schema-only', '--no-owner', url], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.replace(/^\\(un)?restrict .*$/gm, '');
}

/** What `sheaf migrate --all --apply --json` reports. */
interface Plan {
  tables: { table: { name: string } }[];
  columns: { table: { name: string }; column: string }[];
  foreignKeys: { name: string; table: { name: string } }[];
  dependents: { kind: string; name: { name: string }; table: { name: string } }[];
  skipped: { table: { name: string }; reason: string }[];
  verified: unknown[];
}

/** The plan of `--all` on the fixture: partitioned tables at their parent, never a partition. */
function expectPlanAtParent(plan: Plan): void {
  expect(plan.tables.map((t) => t.table.name)).toEqual(['customer', 'refund', 'rental', 'staff']);
  expect(plan.columns.map((c) => `${c.table.name}.${c.column}`).sort()).toEqual([
    'customer.customer_id',
    'payment.customer_id',
    'payment.rental_id',
    'payment.staff_id',
    'refund.customer_id',
    'refund.refund_id',
    'rental.customer_id',
    'rental.rental_id',
    'rental.staff_id',
    'staff.staff_id',
  ]);
  // The parent's foreign keys, and the partitions' own (as in the sample), never a partition's copy.
  expect(plan.foreignKeys.map((fk) => `${fk.table.name} ${fk.name}`).sort()).toEqual([
    'payment payment_customer_id_fkey',
    'payment payment_staff_id_fkey',
    'payment_p2024_01 payment_p2024_01_rental_fk',
    'payment_p2024_02 payment_p2024_02_rental_fk',
    'payment_p2024_03 payment_p2024_03_rental_fk',
    'refund refund_customer_id_fkey',
    'rental rental_customer_id_fkey',
    'rental rental_staff_id_fkey',
  ]);
  // The trigger at the parent only; the partitioned index at the parent and one partition's own index.
  // A view shows one of the tables it reads (which one is the catalog's choice).
  const on = (d: Plan['dependents'][number]) => (d.kind === 'view' ? '' : ` on ${d.table.name}`);
  expect(plan.dependents.map((d) => `${d.kind} ${d.name.name}${on(d)}`)).toEqual([
    'view customer_payments',
    'materialized view customer_totals on payment',
    'index customer_totals_customer on customer_totals',
    'trigger payment_touch on payment',
    'index customer_pkey on customer',
    'index payment_customer_idx on payment',
    'index payment_p2024_01_rental_idx on payment_p2024_01',
    'index refund_pkey on refund',
    'index rental_pkey on rental',
    'index staff_pkey on staff',
  ]);
  expect(plan.skipped.map((s) => s.reason)).toEqual([
    'table public.payment has a composite primary key (payment_id, payment_date), as a table partitioned by RANGE (payment_date) must: sheaf migrates single-column integer keys only',
    expect.stringMatching(
      /^table public\.rental_log is partitioned by its key log_id \(RANGE \(log_id\)\): the key chooses each row's partition, .*cannot change the type of a partition key column$/,
    ),
    'table public.store has a composite primary key (store_id, region_id), as a table partitioned by LIST (region_id) must: sheaf migrates single-column integer keys only',
    expect.stringMatching(
      /^table public\.region cannot move onto sheaf ids: public\.store\.region_id references its key region_id and is in the partition key of public\.store \(LIST \(region_id\)\)/,
    ),
  ]);
}

describeEachTarget(
  'sheaf migrate on partitioned PostgreSQL tables',
  (target) => {
    // Two more PGlite boots (seconds each) for SQL the --all test below runs on PGlite too.
    it.skipIf(target === 'pglite')(
      'refuses --table for a key a partition key holds, naming the table and why, and a partition, naming its parent',
      async () => {
        const url = await fixtureDatabase(target, { script });
        for (const [table, fragment] of [
          ['rental_log', 'table public.rental_log is partitioned by its key log_id'],
          ['region', 'public.store.region_id references its key region_id'],
        ] as const) {
          const refused = await sheaf(['migrate', '--url', url, '--table', table]);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toContain(fragment);
          expect(refused.stderr).toContain('(UNSUPPORTED_KEY)');
        }
        // A partition by name: its parent is what migrates, so the refusal says which one.
        const partition = await sheaf(['migrate', '--url', url, '--table', 'payment_p2024_01']);
        expect(partition.code).toBe(1);
        expect(partition.stderr).toMatch(
          /^sheaf: public\.payment_p2024_01 is a partition of public\.payment: name public\.payment instead .*\(INVALID_ARGUMENT\)$/m,
        );
      },
      timeout,
    );

    it(
      'plans a partitioned table at its parent with the keys it cannot take skipped, and --apply widens it there: every partition follows, no row changes, constraints come back',
      async () => {
        const url = await fixtureDatabase(target, { script });
        const before = await withSql(url, async (sql) => ({
          contents: await contents(sql),
          foreignKeys: await foreignKeys(sql),
        }));
        // --json reports the plan and what --apply verified, in one process (PGlite boots once).
        const plan = await sheafJson<Plan>(['migrate', '--url', url, '--all', '--apply']);
        expectPlanAtParent(plan);
        expect(plan.verified).toHaveLength(5);

        await withSql(url, async (sql) => {
          expect(await contents(sql)).toEqual(before.contents);
          expect(await foreignKeys(sql)).toEqual(before.foreignKeys);
          const types = await columnTypes(sql);
          for (const partition of ['payment', 'payment_p2024_01', 'payment_p2024_02', 'payment_p2024_03']) {
            for (const column of ['customer_id', 'rental_id', 'staff_id']) {
              expect(types).toContain(`${partition}.${column} bigint`);
            }
            expect(types).toContain(`${partition}.payment_id integer`);
          }
          // Keys it could not take keep their type.
          expect(types).toContain('rental_log.log_id integer');
          expect(types).toContain('store.region_id integer');
          const triggers = await sql.query<{ table: string }>(
            `select tgrelid::regclass::text as table from pg_trigger where tgname = 'payment_touch' order by 1`,
          );
          expect(triggers.map((t) => t.table)).toEqual([
            'payment',
            'payment_p2024_01',
            'payment_p2024_02',
            'payment_p2024_03',
          ]);
          // A new customer gets a sheaf id, and a payment for it lands in its partition through the widened column.
          const [customer] = await sql.query<{ id: string }>(
            `insert into customer (name) values ('new') returning customer_id::text as id`,
          );
          expect(BigInt(customer!.id)).toBeGreaterThan(2n ** 32n);
          await sql.query(
            `insert into payment (customer_id, staff_id, amount, payment_date) values ($1, 1, 9.99, '2024-02-10')`,
            [customer!.id],
          );
          const [found] = await sql.query<{ n: string }>(
            'select count(*)::text as n from payment_p2024_02 p join customer_payments v using (payment_id) where v.customer_id = $1',
            [customer!.id],
          );
          expect(found?.n).toBe('1');
        });
      },
      timeout,
    );

    // pg_dump needs a server: PGlite runs in the test's process.
    it.skipIf(target === 'pglite')(
      '--online refuses a partitioned referencing table before the first change, and migrates what it can copy',
      async () => {
        const url = await fixtureDatabase(target, { script });
        const dump = await schemaDump(url);
        for (const selection of [['--all'], ['--table', 'customer']]) {
          const refused = await sheaf(['migrate', '--url', url, ...selection, '--online']);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toMatch(
            /^sheaf: table public\.payment is partitioned and its customer_id(, rental_id, staff_id)? must become bigint: --online cannot copy a partitioned table .*--apply widens public\.payment at the parent.*\(UNSUPPORTED_KEY\)$/m,
          );
          expect(await schemaDump(url)).toBe(dump);
        }

        const refund = await sheaf(['migrate', '--url', url, '--table', 'refund', '--online']);
        expect(refund.code, refund.stderr).toBe(0);
        expect(refund.stdout).toContain('migrated public.refund online');
        await withSql(url, async (sql) => {
          expect(await columnTypes(sql)).toContain('refund.refund_id bigint');
          const [fk] = await sql.query<{ valid: boolean }>(
            `select convalidated as valid from pg_constraint where conname = 'refund_payment_id_payment_date_fkey'`,
          );
          expect(fk?.valid).toBe(true);
        });
      },
      timeout,
    );

    it.skipIf(target === 'pglite')(
      '--online refuses a shadow name taken on any table before preparing the first',
      async () => {
        const url = await fixtureDatabase(target, { script });
        await withSql(url, (sql) =>
          sql.query(
            `create table parent (id serial primary key);
             create table child (id serial primary key, parent_id integer references parent, parent_id_sheaf bigint)`,
          ),
        );
        const dump = await schemaDump(url);
        // parent comes first in the plan: before, it got its shadow and trigger and then child failed.
        const refused = await sheaf(['migrate', '--url', url, '--table', 'parent', '--online']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('column parent_id_sheaf on public.child already exist(s)');
        expect(refused.stderr).toContain('(NAME_TAKEN)');
        expect(await schemaDump(url)).toBe(dump);
      },
      timeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);
