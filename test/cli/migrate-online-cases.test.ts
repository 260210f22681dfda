import type { SqlExecutor } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeEachTarget } from '../support/database.js';
import { columnTypes, fixtureDatabase, withSql } from './migrate-postgres-support.js';
import { sheaf } from './run-sheaf.js';

// CLI processes (PGlite boots in each) and a fixture of a few hundred rows per table to backfill.
const timeout = 180_000;

/** What a refused run must leave as it was: column types, triggers, columns and the state table. */
async function schemaState(sql: SqlExecutor): Promise<unknown> {
  const [objects] = await sql.query(
    `select to_regclass('sheaf.online_migrations')::text as state_table,
       (select count(*)::int from pg_trigger where not tgisinternal) as triggers,
       (select count(*)::int from pg_attribute a join pg_class c on c.oid = a.attrelid
         where c.relkind = 'r' and a.attnum > 0 and not a.attisdropped) as columns,
       (select count(*)::int from pg_index) as indexes`,
  );
  return { types: await columnTypes(sql), objects };
}

/** The key's type and default, e.g. `bigint sheaf.next_id()`. */
async function keyOf(sql: SqlExecutor, table: string): Promise<string> {
  const [row] = await sql.query<{ key: string }>(
    `select format_type(a.atttypid, a.atttypmod) || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') as key
     from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where a.attrelid = $1::regclass and a.attname = 'id'`,
    [table],
  );
  return row?.key ?? '';
}

async function indexDefinition(sql: SqlExecutor, name: string): Promise<string | undefined> {
  const [row] = await sql.query<{ def: string }>('select pg_get_indexdef($1::regclass) as def', [name]);
  return row?.def;
}

describeEachTarget(
  'sheaf migrate --online on PostgreSQL: indexes, repeated runs, column grants',
  (target) => {
    it(
      'refuses an expression index or an exclusion constraint on a widened column before changing anything',
      async () => {
        const url = await fixtureDatabase(target);
        const cases = [
          {
            create: 'create index orders_customer_bucket on orders ((customer_id % 16))',
            refusal:
              /^sheaf: index orders_customer_bucket on public\.orders has an expression over a widened column: .* \(UNSUPPORTED_KEY\)$/m,
            drop: 'drop index orders_customer_bucket',
          },
          {
            create: `create table holds (id serial primary key, customer_id int references customers (id),
              constraint holds_one_per_customer exclude using hash (customer_id with =))`,
            refusal:
              /^sheaf: index holds_one_per_customer on public\.holds backs an exclusion constraint on a widened column: .* \(UNSUPPORTED_KEY\)$/m,
            drop: 'drop table holds',
          },
        ];
        for (const refused of cases) {
          await withSql(url, (sql) => sql.query(refused.create));
          const before = await withSql(url, schemaState);
          const run = await sheaf(['migrate', '--url', url, '--table', 'customers', '--online']);
          expect(run.code, run.stderr).toBe(1);
          expect(run.stderr).toMatch(refused.refusal);
          expect(run.stderr).not.toContain('online: added');
          expect(await withSql(url, schemaState)).toEqual(before);
          await withSql(url, (sql) => sql.query(refused.drop));
        }
      },
      timeout,
    );

    it(
      'rebuilds a partial index whose predicate names a widened column over the new column',
      async () => {
        const url = await fixtureDatabase(target);
        const counted = `select count(*)::int as n from orders where customer_id > 100 and status <> 'customer_id'`;
        const before = await withSql(url, async (sql) => {
          // The only index left on customer_id, so the plan below can use no other.
          await sql.query('drop index orders_customer_idx');
          await sql.query('create index orders_late_customers on orders (customer_id) where customer_id > 100');
          // Named only in the predicate, next to a string literal spelling the column's name.
          await sql.query(
            `create index orders_open_status on orders (status) where customer_id is not null and status <> 'customer_id'`,
          );
          return sql.query(counted);
        });
        const run = await sheaf(['migrate', '--url', url, '--table', 'customers', '--online']);
        expect(run.code, run.stderr).toBe(0);
        await withSql(url, async (sql) => {
          expect((await columnTypes(sql))['public.orders.customer_id']).toBe('bigint');
          expect(await indexDefinition(sql, 'orders_late_customers')).toBe(
            'CREATE INDEX orders_late_customers ON public.orders USING btree (customer_id) WHERE (customer_id > 100)',
          );
          expect(await indexDefinition(sql, 'orders_open_status')).toBe(
            `CREATE INDEX orders_open_status ON public.orders USING btree (status) WHERE ((customer_id IS NOT NULL) AND (status <> 'customer_id'::text))`,
          );
          // Both indexes hang off the new column: dropping it takes them.
          const [deps] = await sql.query<{ n: number }>(
            `select count(distinct d.objid)::int as n from pg_depend d join pg_attribute a
               on a.attrelid = d.refobjid and a.attnum = d.refobjsubid and a.attname = 'customer_id'
             where d.refobjid = 'orders'::regclass and d.objid in ('orders_late_customers'::regclass, 'orders_open_status'::regclass)`,
          );
          expect(deps?.n).toBe(2);
          await sql.query('set enable_seqscan = off');
          const plan = await sql.query<{ 'QUERY PLAN': string }>(
            'explain select id from orders where customer_id > 150',
          );
          expect(plan.map((row) => Object.values(row).join('')).join('\n')).toContain('orders_late_customers');
          expect(await sql.query(counted)).toEqual(before);
        });
      },
      timeout,
    );

    it(
      'migrates online a table that an earlier online run widened as a referencing table',
      async () => {
        const url = await fixtureDatabase(target);
        const first = await sheaf(['migrate', '--url', url, '--table', 'customers', '--online']);
        expect(first.code, first.stderr).toBe(0);
        await withSql(url, async (sql) => {
          expect((await columnTypes(sql))['public.orders.customer_id']).toBe('bigint');
          expect(await keyOf(sql, 'orders')).toBe(`integer nextval('orders_id_seq'::regclass)`);
        });

        const second = await sheaf(['migrate', '--url', url, '--table', 'orders', '--online']);
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout).toMatch(/^migrated .*public\.orders.* online/m);
        await withSql(url, async (sql) => {
          expect(await keyOf(sql, 'customers')).toBe('bigint sheaf.next_id()');
          expect(await keyOf(sql, 'orders')).toBe('bigint sheaf.next_id()');
          const types = await columnTypes(sql);
          expect([types['public.order_lines.order_id'], types['public.shipments.order_id']]).toEqual([
            'bigint',
            'bigint',
          ]);
          const phases = await sql.query('select distinct phase from sheaf.online_migrations');
          expect(phases).toEqual([{ phase: 'done' }]);
        });
        const third = await sheaf(['migrate', '--url', url, '--table', 'orders', '--online']);
        expect(third.code, third.stderr).toBe(0);
        expect(third.stdout).toContain('nothing to do');
      },
      timeout,
    );

    it(
      "keeps a role's column grant, the statistics target and options of a swapped column",
      async () => {
        const url = await fixtureDatabase(target);
        const role = `sheaf_reader_${Math.random().toString(36).slice(2, 8)}`;
        await withSql(url, async (sql) => {
          await sql.query(`create role ${role} nologin`);
          await sql.query(`grant select (id, status) on orders to ${role}`);
          await sql.query(`grant update (id) on orders to ${role} with grant option`);
          await sql.query(
            'alter table orders alter column id set statistics 321, alter column id set (n_distinct = -1)',
          );
        });
        try {
          const run = await sheaf(['migrate', '--url', url, '--table', 'orders', '--online']);
          expect(run.code, run.stderr).toBe(0);
          await withSql(url, async (sql) => {
            expect(await keyOf(sql, 'orders')).toBe('bigint sheaf.next_id()');
            await sql.query(`set role ${role}`);
            const [row] = await sql.query<{ n: number }>('select count(id)::int as n from orders');
            expect(row?.n).toBe(400);
            await expect(sql.query('select count(customer_id) from orders')).rejects.toThrow(/permission denied/);
            await sql.query('reset role');
            const [column] = await sql.query(
              `select attstattarget::int as statistics,
                 array(select o from unnest(attoptions) o where o like 'n\\_distinct%') as options,
                 has_column_privilege($1, 'orders', 'id', 'update with grant option') as grantable
               from pg_attribute where attrelid = 'orders'::regclass and attname = 'id'`,
              [role],
            );
            expect(column).toEqual({ statistics: 321, options: ['n_distinct=-1'], grantable: true });
          });
        } finally {
          await withSql(url, async (sql) => {
            await sql.query(`drop owned by ${role}`);
            await sql.query(`drop role ${role}`);
          });
        }
      },
      timeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);
