// The routine warnings name what really breaks, on a small shop schema per dialect: a MySQL BOOLEAN
// (tinyint(1)) result is a flag, not a key slot; a MySQL procedure keeping ids in a table it creates
// is reported (and does fail once a sheaf id reaches it); a PostgreSQL integer parameter breaks its
// callers that pass a widened column at commit, which the warning says.
import type { MigrationWarning } from '@sheaf/migrate';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { onDatabase, urlFor } from './cli-targets.js';
import { sheaf, sheafJson } from './run-sheaf.js';

const timeout = 60_000;

const schema = {
  postgres: [
    'create table customers (id serial primary key, email text)',
    'create table orders (id serial primary key, customer_id integer references customers (id), amount numeric)',
    `create function order_total(p_customer_id integer) returns numeric language sql
       as $$ select coalesce(sum(amount), 0) from orders where customer_id = p_customer_id $$`,
    `create function big_spenders() returns bigint language sql
       as $$ select count(*) from customers c where order_total(c.id) > 10 $$`,
    `create function order_count() returns bigint language plpgsql as $$
       declare n integer;
       begin select count(*) into n from orders where customer_id is not null; return n; end $$`,
    "insert into customers (email) values ('a@example.com')",
    'insert into orders (customer_id, amount) values (1, 20)',
  ],
  mysql: [
    'create table customers (id int not null auto_increment primary key, email varchar(100))',
    `create table orders (id int not null auto_increment primary key, customer_id int, amount decimal(8,2),
       constraint orders_customer foreign key (customer_id) references customers (id))`,
    `create function has_orders(p_customer_id int) returns boolean reads sql data
       return exists (select 1 from orders where customer_id = p_customer_id)`,
    `create procedure top_buyers(in min_orders int) modifies sql data
     begin
       create temporary table buyers (customer_id smallint unsigned not null primary key);
       insert into buyers select customer_id from orders group by customer_id having count(*) >= min_orders;
       select count(*) as n from buyers;
       drop temporary table buyers;
     end`,
    "insert into customers (email) values ('a@example.com')",
    'insert into orders (customer_id, amount) values (1, 20)',
  ],
};

const routineMessages = (warnings: readonly MigrationWarning[]) =>
  Object.fromEntries(warnings.filter((w) => w.kind === 'routine').map((w) => [w.objects[0]?.name, w.message]));

describeTargets(
  'sheaf migrate routine warnings name what breaks',
  (db, target) => {
    const dialect = target === 'mariadb' ? 'mysql' : 'postgres';

    it(
      'reports key slots, not flags, and says how the calls fail',
      async () => {
        const url = await urlFor(target, db());
        expect((await sheaf(['install', '--url', url])).code).toBe(0);
        await onDatabase(url, db(), async (sql) => {
          for (const statement of schema[dialect]) await sql.query(statement);
        });
        const report = await sheafJson<{ warnings: MigrationWarning[] }>(['migrate', '--url', url, '--all']);
        const messages = routineMessages(report.warnings);

        if (dialect === 'mysql') {
          expect(Object.keys(messages).sort()).toEqual(['has_orders', 'top_buyers']);
          expect(messages.has_orders).toMatch(/in parameter p_customer_id int\S* \(it handles/);
          expect(messages.has_orders).not.toMatch(/return type|tinyint/);
          expect(messages.top_buyers).toMatch(/in integer id columns of tables its body creates \(it handles/);
        } else {
          expect(Object.keys(messages).sort()).toEqual(['order_count', 'order_total']);
          expect(messages.order_total).toMatch(/passing a bigint.* fails with "function … does not exist"/);
          expect(messages.order_count).toMatch(/in integer variables or casts in its body/);
          expect(messages.order_count).toMatch(/calls fail with "integer out of range"/);
          expect(messages.order_count).not.toMatch(/does not exist/);
        }

        const applied = await sheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(applied.code, applied.stderr).toBe(0);
        await onDatabase(url, db(), async (sql) => {
          if (dialect === 'mysql') {
            // The flag still works; the created table refuses the first sheaf id that reaches it.
            const [row] = await sql.query<{ yes: unknown }>('select has_orders(1) as yes');
            expect(Number(row?.yes)).toBe(1);
            await sql.query("insert into customers (email) values ('new@example.com')");
            await sql.query('insert into orders (customer_id, amount) select max(id), 5 from customers');
            await expect(sql.query('call top_buyers(1)')).rejects.toThrow(
              /Out of range value for column 'customer_id'/,
            );
          } else {
            // Only old, small ids, and the caller is broken already.
            await expect(sql.query('select big_spenders()')).rejects.toThrow(
              /function order_total\(bigint\) does not exist/,
            );
          }
        });
      },
      timeout,
    );
  },
  { only: ['postgres', 'mariadb'] },
);
