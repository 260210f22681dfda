// What Drizzle, Prisma, Knex and mysql2 read back after inserting into MariaDB tables that
// `sheaf migrate --apply` converted, compared with what is stored, for both key shapes: AUTO_INCREMENT
// kept (the default) and dropped (--no-auto-increment); docs/migrating-existing-tables.md, "Which key
// shape for which client".
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { decodeId, install, mysql2Executor, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { insertWithIds } from '@sheaf/knex';
import { sheaf as sheafPrisma } from '@sheaf/prisma';
import { drizzle } from 'drizzle-orm/mysql2';
import mysql from 'mysql2/promise';
import { afterAll, beforeEach, expect, it } from 'vitest';
import {
  placeOrder as placeDrizzleOrder,
  startIds as startDrizzleIds,
} from '../../docs/guides/examples/drizzle/mysql.js';
import * as drizzleSchema from '../../docs/guides/examples/drizzle/schema-mysql.js';
import { placeOrder as placePrismaOrder, withSheaf } from '../../docs/guides/examples/prisma/app.js';
import { PrismaClient } from '../.generated/prisma/mysql/client.js';
import { sheafModels } from '../.generated/prisma/mysql/sheaf/models.js';
import type { PrismaClient as PgClient } from '../.generated/prisma/postgres/client.js';
import { describeTargets, type Opened, openDatabase } from '../support/database.js';
import { connectKnex } from '../support/knex.js';
import { sheaf } from './run-sheaf.js';

// The tables as the applications had them before sheaf: integer AUTO_INCREMENT keys, one row each.
const drizzleTables = [
  'create table orders (id int not null auto_increment primary key, customer varchar(100) not null)',
  `create table order_items (id int not null auto_increment primary key, order_id int not null,
    sku varchar(40) not null, quantity int not null, foreign key (order_id) references orders (id))`,
  "insert into orders (customer) values ('before sheaf')",
  "insert into order_items (order_id, sku, quantity) values (1, 'old', 1)",
];
const prismaTables = [
  'create table Customer (id int not null auto_increment primary key, email varchar(191) not null unique)',
  `create table orders (id int not null auto_increment primary key, customer_id int not null, total int not null,
    foreign key (customer_id) references Customer (id))`,
  `create table order_items (id int not null auto_increment primary key, order_id int not null,
    sku varchar(191) not null, foreign key (order_id) references orders (id))`,
  "insert into Customer (email) values ('before@example.com')",
];

/** A database of its own holding `tables`, with sheaf (shard 1), converted by `sheaf migrate --all --apply …flags`. */
async function converted(opened: Opened[], tables: readonly string[], flags: readonly string[]) {
  const database = await openDatabase('mariadb');
  opened.push(database);
  const { url, executor } = database.database;
  await install(executor, { shard: 1 });
  for (const statement of tables) await executor.query(statement);
  const run = await sheaf(['migrate', '--url', url as string, '--all', '--apply', ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return { url: url as string, executor };
}

/** The ids stored in `table` (as strings), in key order; `where` narrows them. */
async function storedIds(url: string, table: string, where = '1 = 1'): Promise<string[]> {
  const connection = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(`select id from ${table} where ${where} order by id`);
    return rows.map((row) => String(row.id));
  } finally {
    await connection.end();
  }
}

/** What the CLI prints about a key: its column definition in `show create table`. */
async function keyDefinition(url: string, table: string): Promise<string> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    const [[row]] = await connection.query<mysql.RowDataPacket[]>(`show create table ${table}`);
    return String(row?.['Create Table']).match(/^ {2}`id` .*$/m)?.[0] ?? '';
  } finally {
    await connection.end();
  }
}

describeTargets(
  'clients on tables sheaf migrate converted',
  () => {
    // Databases of the tests' own, dropped once every test passed.
    const opened: Opened[] = [];
    let passed = true;
    beforeEach(({ onTestFailed }) => {
      onTestFailed(() => {
        passed = false;
      });
    });
    afterAll(async () => {
      for (const database of opened) await database.close(passed);
    });

    it('drizzle $returningId() fails on keys that kept AUTO_INCREMENT, after storing the rows; --no-auto-increment fixes it, also afterwards', async () => {
      const kept = await converted(opened, drizzleTables, []);
      expect(await keyDefinition(kept.url, 'orders')).toBe('  `id` bigint(20) NOT NULL AUTO_INCREMENT,');
      const pool = mysql.createPool({ uri: kept.url, supportBigNumbers: true, bigNumberStrings: true });
      const snowflake = await startDrizzleIds(mysql2Executor(pool));
      try {
        const db = drizzle(pool, { schema: drizzleSchema, mode: 'default' });
        // The server reports the id drizzle sent as the insertId (a string here); drizzle counts from
        // it, runs past the ids it made and throws, the row committed: a retry would store it twice.
        await expect(placeDrizzleOrder(db)).rejects.toThrow(TypeError);
        expect(await storedIds(kept.url, 'orders', "customer = 'ada'")).toHaveLength(1);
        await expect(
          db
            .insert(drizzleSchema.orders)
            .values([{ customer: 'b' }, { customer: 'c' }])
            .$returningId(),
        ).rejects.toThrow(TypeError);
        expect(await storedIds(kept.url, 'orders', "customer in ('b', 'c')")).toHaveLength(2);

        // The documented way for a converted table: drop AUTO_INCREMENT, the trigger keeps filling the key.
        const drop = await sheaf(['migrate', '--url', kept.url, '--all', '--no-auto-increment', '--apply']);
        expect(drop.code, drop.stderr).toBe(0);
        expect(drop.stdout).toContain('migrated 0 tables in ');
        expect(drop.stdout).toContain('; dropped AUTO_INCREMENT from 2 keys\n');
        expect(await keyDefinition(kept.url, 'orders')).toBe('  `id` bigint(20) NOT NULL DEFAULT 0,');
        await expectPlacedOrdersStored(db, kept.url, snowflake.workerId);
      } finally {
        await snowflake.close();
        await pool.end();
      }

      const dropped = await converted(opened, drizzleTables, ['--no-auto-increment']);
      expect(await keyDefinition(dropped.url, 'orders')).toBe('  `id` bigint(20) NOT NULL DEFAULT 0,');
      const pool2 = mysql.createPool({ uri: dropped.url, supportBigNumbers: true, bigNumberStrings: true });
      const snowflake2 = await startDrizzleIds(mysql2Executor(pool2));
      try {
        await expectPlacedOrdersStored(
          drizzle(pool2, { schema: drizzleSchema, mode: 'default' }),
          dropped.url,
          snowflake2.workerId,
        );
        // Rows inserted without an id, by other clients, still get sheaf ids from the trigger.
        await pool2.query("insert into orders (customer) values ('raw')");
        await pool2.query("insert into orders (customer) select 'raw select'");
        for (const id of await storedIds(dropped.url, 'orders', "customer like 'raw%'")) {
          expect(decodeId(id).shardId).toBe(1);
        }
        expect(await storedIds(dropped.url, 'orders', "customer = 'before sheaf'")).toEqual(['1']);
      } finally {
        await snowflake2.close();
        await pool2.end();
      }
    }, 60_000);

    it('Prisma: with AUTO_INCREMENT kept every strategy returns the stored ids; without it only app-side ids on dbgenerated() models do', async () => {
      const kept = await converted(opened, prismaTables, []);
      await withPrisma(kept, async ({ prisma, url }) => {
        // The guide's example: the customer keyed by the trigger (strategy db), its order and items by the app.
        const { customer, order } = await placePrismaOrder(prisma, 'ada@example.com');
        expect([String(customer.id)]).toEqual(await storedIds(url, 'Customer', "email = 'ada@example.com'"));
        expect(decodeId(customer.id).shardId).toBe(1);
        expect([String(order.id)]).toEqual(await storedIds(url, 'orders', `customer_id = ${customer.id}`));
        expect(order.items.map((item) => String(item.id))).toEqual(
          await storedIds(url, 'order_items', `order_id = ${order.id}`),
        );
        const nested = await prisma.order.create({
          data: { total: 9, customer: { create: { email: 'nested@example.com' } } },
          include: { customer: true },
        });
        expect([String(nested.customer.id)]).toEqual(await storedIds(url, 'Customer', "email = 'nested@example.com'"));
        await expectAppIdsStored(prisma, url, customer.id);
      });

      const dropped = await converted(opened, prismaTables, ['--no-auto-increment']);
      await withPrisma(dropped, async ({ prisma, base, snowflake, url }) => {
        // App-side ids on dbgenerated() models: what the guide says to use on such keys.
        await expectAppIdsStored(prisma, url, 1n);
        const order = await prisma.order.create({
          data: { total: 4, customerId: 1n, items: { create: [{ sku: 'tea' }, { sku: 'scone' }] } },
          include: { items: true },
        });
        expect(order.items.map((item) => String(item.id))).toEqual(
          await storedIds(url, 'order_items', `order_id = ${order.id}`),
        );
        // An autoincrement() model there: Prisma reads the id back as the insertId, which is 0 now.
        // The row is stored all the same, so create() answers null, db strategy or app-side ids alike.
        expect(await prisma.customer.create({ data: { email: 'db@example.com' } })).toBeNull();
        expect(await storedIds(url, 'Customer', "email = 'db@example.com'")).toHaveLength(1);
        const appCustomers = base.$extends(
          sheafPrisma({ schema: sheafModels, models: { Customer: { strategy: 'snowflake', generator: snowflake } } }),
        );
        expect(await appCustomers.customer.create({ data: { email: 'app@example.com' } })).toBeNull();
        expect(await storedIds(url, 'Customer', "email = 'app@example.com'")).toHaveLength(1);
        // A nested create under it takes 0 as the parent's id: refused by the foreign key, rolled back.
        await expect(
          prisma.customer.create({ data: { email: 'parent@example.com', orders: { create: [{ total: 1 }] } } }),
        ).rejects.toThrow(/Foreign key constraint/);
        expect(await storedIds(url, 'Customer', "email = 'parent@example.com'")).toEqual([]);
      });
    }, 60_000);

    it('Knex and mysql2: insertWithIds returns the stored ids on both shapes; insertId is the sheaf id only with AUTO_INCREMENT', async () => {
      const events = ['create table events (id int not null auto_increment primary key, v int not null)'];
      for (const flags of [[], ['--no-auto-increment']]) {
        const { url } = await converted(opened, events, flags);
        const counted = flags.length === 0;
        const k = await connectKnex('mariadb', url);
        const raw = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
        try {
          const storedFor = (...vs: number[]) => storedIds(url, 'events', `v in (${vs.join(', ')})`);
          const [one] = await k('events').insert({ v: 1 });
          const [many] = await k('events').insert([{ v: 2 }, { v: 3 }]);
          const [[single], [last]] = [await storedFor(1), (await storedFor(2, 3)).slice(-1)];
          // With AUTO_INCREMENT: the sheaf id of a one-row insert, the last row's of a multi-row one.
          expect([String(one), String(many)]).toEqual(counted ? [single, last] : ['0', '0']);
          expect((await insertWithIds(k, 'events', { v: 4 })).map(String)).toEqual(await storedFor(4));
          expect((await insertWithIds(k, 'events', [{ v: 5 }, { v: 6 }])).map(String)).toEqual(await storedFor(5, 6));
          const [header] = await raw.query<mysql.ResultSetHeader>('insert into events (v) values (7)');
          expect(String(header.insertId)).toBe(counted ? (await storedFor(7))[0] : '0');
          const [returned] = await raw.query<mysql.RowDataPacket[]>(
            'insert into events (v) values (8), (9) returning id',
          );
          expect(returned.map((row) => String(row.id))).toEqual(await storedFor(8, 9));
          for (const id of await storedFor(1, 2, 3, 4, 5, 6, 7, 8, 9)) expect(decodeId(id).shardId).toBe(1);
        } finally {
          await raw.end();
          await k.destroy();
        }
      }
    }, 60_000);
  },
  { only: ['mariadb'] },
);

/** The drizzle guide's placeOrder, and a two-row order insert: every id returned is the id stored. */
async function expectPlacedOrdersStored(
  db: Parameters<typeof placeDrizzleOrder>[0],
  url: string,
  workerId: number,
): Promise<void> {
  const placed = await placeDrizzleOrder(db);
  const orderId = String(placed.order?.id);
  expect(await storedIds(url, 'orders', `id = ${orderId}`)).toEqual([orderId]);
  expect(placed.itemIds.map(String)).toEqual(await storedIds(url, 'order_items', `order_id = ${orderId}`));
  expect(placed.itemIds).toHaveLength(2);
  const two = await db
    .insert(drizzleSchema.orders)
    .values([{ customer: 'd' }, { customer: 'e' }])
    .$returningId();
  expect(two.map((row) => String(row.id))).toEqual(await storedIds(url, 'orders', "customer in ('d', 'e')"));
  for (const id of [orderId, ...placed.itemIds.map(String), ...two.map((row) => String(row.id))]) {
    expect(decodeId(id).shardId).toBe(workerId);
  }
}

/** The guide's Prisma client on `database` (Customer keyed by the database, orders and items by a SnowflakeGenerator). */
async function withPrisma(
  database: { url: string; executor: SqlExecutor },
  work: (clients: {
    prisma: ReturnType<typeof withSheaf>;
    base: PgClient;
    snowflake: SnowflakeGenerator;
    url: string;
  }) => Promise<void>,
): Promise<void> {
  const base = new PrismaClient({
    adapter: new PrismaMariaDb(database.url.replace(/^mysql:/, 'mariadb:')),
  }) as unknown as PgClient;
  const snowflake = await SnowflakeGenerator.start(database.executor);
  try {
    await work({ prisma: withSheaf(base, snowflake), base, snowflake, url: database.url });
  } finally {
    await snowflake.close();
    await base.$disconnect();
  }
}

/** App-side ids of Order (a dbgenerated() model): create, createMany and upsert return or store them as given. */
async function expectAppIdsStored(prisma: ReturnType<typeof withSheaf>, url: string, customerId: bigint) {
  const created = await prisma.order.create({ data: { total: 101, customerId } });
  expect([String(created.id)]).toEqual(await storedIds(url, 'orders', `id = ${created.id}`));
  expect(
    await prisma.order.createMany({
      data: [
        { total: 102, customerId },
        { total: 102, customerId },
      ],
    }),
  ).toEqual({
    count: 2,
  });
  expect(await storedIds(url, 'orders', 'total = 102')).toHaveLength(2);
  const upserted = await prisma.order.upsert({
    where: { id: 1n },
    create: { total: 103, customerId },
    update: {},
  });
  expect([String(upserted.id)]).toEqual(await storedIds(url, 'orders', 'total = 103'));
}
