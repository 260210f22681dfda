// What the plan warns about and leaves as it is, and the keys it must not give sheaf ids of their
// own, on a small shop schema per dialect: routines with integer slots for keys, routines reading
// back a retired sequence or LAST_INSERT_ID(), *_id columns without a foreign key, a sequence two
// keys share (and a third column still uses), and a 1:1 table whose key is its parent's.
import type { MigrationWarning } from '@sheaf/migrate';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { onDatabase, urlFor } from './cli-targets.js';
import { sheaf, sheafJson } from './run-sheaf.js';

const timeout = 60_000;

const schema = {
  postgres: [
    'create table customers (id serial primary key, email text)',
    'create table orders (id serial primary key, customer_id integer references customers (id), quantity integer)',
    'create table invoices (id bigserial primary key, customer_id integer, "orderId" integer, amount integer)',
    'create table profiles (id integer primary key references customers (id), bio text)',
    'create sequence ticket_seq',
    "create table tickets (id integer primary key default nextval('ticket_seq'), note text)",
    "create table refunds (id integer primary key default nextval('ticket_seq'), note text)",
    "create table vouchers (code text primary key, n integer default nextval('ticket_seq'))",
    `create function order_count(p_customer_id integer) returns bigint language sql
       as $$ select count(*) from orders where customer_id = p_customer_id $$`,
    `create function place_order(customer integer) returns integer language plpgsql as $$
       declare v_id integer;
       begin
         insert into orders (customer_id) values (customer) returning id into v_id;
         return v_id;
       end $$`,
    `create function last_ticket() returns bigint language plpgsql as $$
       begin insert into tickets (note) values ('x'); return currval('ticket_seq'); end $$`,
    `create function new_customer(e text) returns bigint language sql
       as $$ insert into customers (email) values (e); select lastval() $$`,
    // Integers, but neither named like a key nor near one: left out.
    'create function total_quantity() returns integer language sql as $$ select sum(quantity)::int from orders $$',
    'create function big_orders(quantity integer) returns bigint language sql as $$ select count(*) from orders o where o.quantity > big_orders.quantity $$',
    "insert into customers (email) values ('a@example.com'), ('b@example.com')",
    "insert into tickets (note) values ('t1')",
  ],
  mysql: [
    'create table customers (id int not null auto_increment primary key, email varchar(100))',
    `create table orders (id int not null auto_increment primary key, customer_id int, quantity int,
       constraint orders_customer foreign key (customer_id) references customers (id))`,
    'create table invoices (id bigint not null auto_increment primary key, customer_id int, orderId int, amount int)',
    `create table profiles (id int not null primary key, bio text,
       constraint profiles_customer foreign key (id) references customers (id))`,
    'create sequence ticket_seq',
    'create table tickets (id int not null default (nextval(ticket_seq)) primary key, note varchar(20))',
    'create table refunds (id int not null default (nextval(ticket_seq)) primary key, note varchar(20))',
    'create table vouchers (code varchar(20) primary key, n int default (nextval(ticket_seq)))',
    `create function order_count(p_customer_id int) returns bigint reads sql data
       return (select count(*) from orders where customer_id = p_customer_id)`,
    `create procedure place_order(in customer int, out new_id int) modifies sql data
     begin
       insert into orders (customer_id) values (customer);
       set new_id = last_insert_id();
     end`,
    `create trigger orders_audit after insert on orders for each row
     begin
       declare v_order int;
       set v_order = new.id;
     end`,
    'create function total_quantity() returns int reads sql data return (select sum(quantity) from orders)',
    `create function big_orders(quantity int) returns bigint reads sql data
       return (select count(*) from orders o where o.quantity > quantity)`,
    "insert into customers (email) values ('a@example.com'), ('b@example.com')",
    "insert into tickets (note) values ('t1')",
  ],
};

/** Each warning as `kind: the objects it names`, sorted: what the heuristics found, without the prose. */
const found = (warnings: readonly MigrationWarning[]) =>
  warnings
    .map((w) => `${w.kind}: ${w.objects.map((o) => `${o.type} ${o.name}${o.column ? `.${o.column}` : ''}`).join(', ')}`)
    .sort();

describeTargets(
  'sheaf migrate warnings and shared keys',
  (db, target) => {
    const dialect = target === 'mariadb' ? 'mysql' : 'postgres';

    it(
      'warns about what it leaves as it is, skips the 1:1 table, and moves both tables sharing a sequence',
      async () => {
        const url = await urlFor(target, db());
        expect((await sheaf(['install', '--url', url])).code).toBe(0);
        await onDatabase(url, db(), async (sql) => {
          for (const statement of schema[dialect]) await sql.query(statement);
        });
        const report = await sheafJson<{ warnings: MigrationWarning[]; tables: { table: { name: string } }[] }>([
          'migrate',
          '--url',
          url,
          '--all',
        ]);
        expect(report.tables.map((t) => t.table.name).sort()).toEqual([
          'customers',
          'invoices',
          'orders',
          'refunds',
          'tickets',
        ]);
        expect(found(report.warnings)).toEqual(
          dialect === 'postgres'
            ? [
                'kept-sequence: sequence ticket_seq',
                'routine: function order_count',
                'routine: function place_order',
                'sequence-call: function last_ticket',
                'sequence-call: function new_customer',
                'unlinked-column: column invoices.customer_id',
                'unlinked-column: column invoices.orderId',
              ]
            : [
                'kept-sequence: sequence ticket_seq',
                'last-insert-id: procedure place_order',
                'last-insert-id: table customers, table invoices, table orders, table refunds, table tickets',
                'routine: function order_count',
                'routine: procedure place_order',
                'routine: trigger orders_audit',
                'unlinked-column: column invoices.customer_id',
                'unlinked-column: column invoices.orderId',
              ],
        );
        const plan = await sheaf(['migrate', '--url', url, '--all']);
        expect(plan.code, plan.stderr).toBe(0);
        const warnings = plan.stdout.slice(plan.stdout.indexOf('\nwarnings ('));
        expect(warnings).toMatch(/^\nwarnings \(\d+\), not changed by the migration:\n/);
        expect(warnings).toMatch(
          /^ {2}sequence \S*ticket_seq is kept: .*\S*refunds\.id, \S*tickets\.id.* no longer feeds .*; it is still the default of \S*vouchers\.n$/m,
        );
        expect(warnings).toMatch(
          /^ {2}\S*invoices\.\S*orderId\S* \(int.*\) looks like a reference to \S*orders but has no foreign key, so it is not widened/m,
        );
        expect(warnings).toMatch(
          /order_count\(.*p_customer_id.*\) may be given migrated keys in parameter p_customer_id/,
        );
        expect(plan.stdout).toMatch(
          /^ {2}table \S*profiles: its key id is also its foreign key \S+ to \S*customers \(id\), a shared one-to-one key/m,
        );
        if (dialect === 'mysql') {
          // MySQL keeps triggers through ALTER TABLE: listed as kept, not as indexes rebuilt.
          expect(plan.stdout).toMatch(
            /^views and triggers kept as they are \(they read the new type\) \(1\):\n {2}trigger orders_audit on /m,
          );
          expect(plan.stdout).toMatch(
            /^indexes rebuilt by the type change \(\d+\):\n( {2}index .*\n)+views and triggers kept/m,
          );
          expect(warnings).toMatch(
            /LAST_INSERT_ID\(\) no longer returns the id of a row inserted into .*\S*tickets.*: sheaf's trigger sets the key/,
          );
          expect(warnings).toMatch(/\S*refunds, \S*tickets have no AUTO_INCREMENT, so their insertId is 0 as well/);
        }

        const applied = await sheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(applied.code, applied.stderr).toBe(0);
        await onDatabase(url, db(), async (sql) => {
          // Both tables that drew from the shared sequence take sheaf ids now; the sequence stays for vouchers.
          const floor = BigInt(String((await sql.query<{ f: unknown }>(floorSql[dialect]))[0]?.f));
          for (const table of ['tickets', 'refunds']) {
            await sql.query(`insert into ${table} (note) values ('new')`);
            const [row] = await sql.query<{ id: unknown }>(`select max(id) as id from ${table}`);
            expect(BigInt(String(row?.id)), table).toBeGreaterThanOrEqual(floor);
          }
          // MariaDB: the key's default is 0 now, so an insert … select without it still works.
          await sql.query("insert into tickets (note) select 'copied'");
          await sql.query("insert into vouchers (code) values ('v1')");
          const [voucher] = await sql.query<{ n: unknown }>("select n from vouchers where code = 'v1'");
          expect(Number(voucher?.n)).toBeLessThan(100);
          // The 1:1 table is widened with its parent but keeps taking its parent's ids: no default, no trigger.
          const [profile] = await sql.query<{ type: string; fallback: string | null }>(profileSql[dialect]);
          expect(profile).toEqual({ type: 'bigint', fallback: null });
          expect(await sql.query(profileTriggerSql[dialect])).toEqual([]);
          const [customer] = await sql.query<{ id: unknown }>('select min(id) as id from customers');
          await sql.query(`insert into profiles (id, bio) values (${String(customer?.id)}, 'hi')`);
        });
      },
      timeout,
    );
    // PGlite runs the same catalog queries as PostgreSQL; its CLI processes boot it for 20 s more.
  },
  { only: ['postgres', 'mariadb'] },
);

const floorSql = {
  postgres: "select sheaf.id_floor(now() - interval '1 minute')::text as f",
  mysql: 'select cast(sheaf_id_floor(utc_timestamp(3) - interval 1 minute) as char) as f',
};

const profileSql = {
  postgres: `select data_type as type, column_default as fallback from information_schema.columns
    where table_name = 'profiles' and column_name = 'id'`,
  mysql: `select data_type as type, column_default as fallback from information_schema.columns
    where table_schema = database() and table_name = 'profiles' and column_name = 'id'`,
};

const profileTriggerSql = {
  postgres: "select tgname from pg_trigger where tgrelid = 'profiles'::regclass and not tgisinternal",
  mysql:
    "select trigger_name from information_schema.triggers where trigger_schema = database() and event_object_table = 'profiles'",
};
