import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { decodeId, encodeId, install, SnowflakeGenerator } from '@sheaf/core';
import { bigintReplacer, idReviver, type PrismaIdSource, sheaf, toJsonSafe } from '@sheaf/prisma';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, placeOrder, withSheaf } from '../../docs/guides/examples/prisma/app.js';
import { mysqlMigration, postgresMigration } from '../../docs/guides/examples/prisma/migration.js';
import { PrismaClient as MysqlClient } from '../.generated/prisma/mysql/client.js';
import { sheafModels as mysqlModels } from '../.generated/prisma/mysql/sheaf/models.js';
import { PrismaClient as PgClient } from '../.generated/prisma/postgres/client.js';
import { describeTargets } from '../support/database.js';
import { dropPgDatabase } from '../support/drop-pg-database.js';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { pgUrl, withDatabase } from '../support/targets.js';

/** App-side ids on shard 7 (the database issues shard 1), so each test sees who assigned an id. */
function shard7(): PrismaIdSource & { issued: bigint[] } {
  let sequence = 0;
  const issued: bigint[] = [];
  return {
    issued,
    next() {
      const id = encodeId({ time: Date.now(), shardId: 7, sequence: sequence++ % 1024 });
      issued.push(id);
      return id;
    },
  };
}

const shardOf = (id: bigint | null | undefined) => decodeId(id!).shardId;

describeTargets('prisma', (db, target) => {
  const mysql = target === 'mariadb';
  let base: PgClient;
  let ids: ReturnType<typeof shard7>;
  let prisma: ReturnType<typeof withSheaf>;

  beforeAll(async () => {
    await install(db().executor, { shard: 1 });
    for (const statement of mysql ? mysqlMigration : postgresMigration) await db().executor.query(statement);
    const adapter =
      target === 'postgres'
        ? new PrismaPg({ connectionString: db().url! })
        : target === 'pglite'
          ? new PrismaPGlite(db().pglite!)
          : new PrismaMariaDb(db().url!.replace(/^mysql:/, 'mariadb:'));
    base = (mysql ? new MysqlClient({ adapter }) : new PgClient({ adapter })) as PgClient;
    ids = shard7();
    prisma = withSheaf(base, ids);
  });
  afterAll(async () => {
    await base?.$disconnect();
  });

  it('runs the guide example: db ids for customers, app ids for an order and its nested items, JSON both ways', async () => {
    const { customer, order, json, parsed } = await placeOrder(prisma, 'ada@example.com');
    expect(shardOf(customer.id)).toBe(1);
    expect(shardOf(order.id)).toBe(7);
    expect(order.customerId).toBe(customer.id);
    expect(order.items).toHaveLength(2);
    for (const item of order.items) {
      expect(shardOf(item.id)).toBe(7);
      expect(item.orderId).toBe(order.id);
    }
    expect(JSON.parse(json).id).toBe(order.id.toString());
    expect(parsed.id).toBe(order.id);
    expect(parsed.items[1].orderId).toBe(order.id);
  });

  it.skipIf(target !== 'postgres')('runs the whole guide program, main(), on a database of its own', async () => {
    const name = `sheaf_prisma_main_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    try {
      const { workerId, customer, order } = await main(withDatabase(pgUrl, name), 'main@example.com');
      expect(shardOf(customer.id)).toBe(1);
      expect([order.id, ...order.items.map((item) => item.id)].map(shardOf)).toEqual([workerId, workerId, workerId]);
    } finally {
      await dropPgDatabase(admin, name);
      await admin.end();
    }
  });

  it('createMany assigns ids to rows without one and keeps given ids', async () => {
    const customer = await prisma.customer.create({ data: { email: 'many@example.com' } });
    const given = encodeId({ time: Date.now(), shardId: 9, sequence: 1 });
    const before = ids.issued.length;
    await prisma.order.createMany({
      data: [
        { customerId: customer.id, total: 1 },
        { id: given, customerId: customer.id, total: 2 },
        { customerId: customer.id, total: 3 },
      ],
    });
    const rows = await prisma.order.findMany({ where: { customerId: customer.id }, orderBy: { total: 'asc' } });
    expect(rows.map((row) => row.id)).toEqual([ids.issued[before], given, ids.issued[before + 1]]);
  });

  it.skipIf(mysql)('createManyAndReturn returns the assigned ids (not in Prisma for MySQL)', async () => {
    const customer = await prisma.customer.create({ data: { email: 'return@example.com' } });
    const rows = await prisma.order.createManyAndReturn({
      data: [
        { customerId: customer.id, total: 1 },
        { customerId: customer.id, total: 2 },
      ],
    });
    expect(rows.map((row) => shardOf(row.id))).toEqual([7, 7]);
  });

  it('upsert: the create branch gets an id; the update branch keeps the id and its nested creates get theirs', async () => {
    const customer = await prisma.customer.create({ data: { email: 'upsert@example.com' } });
    const absent = encodeId({ time: Date.now(), shardId: 9, sequence: 2 });
    const created = await prisma.order.upsert({
      where: { id: absent },
      create: { customerId: customer.id, total: 5, items: { create: { sku: 'jam' } } },
      update: {},
      include: { items: true },
    });
    expect(shardOf(created.id)).toBe(7);
    expect(shardOf(created.items[0]!.id)).toBe(7);
    const updated = await prisma.order.upsert({
      where: { id: created.id },
      create: { customerId: customer.id, total: 0 },
      update: { total: 6, items: { create: { sku: 'cream' } } },
      include: { items: true },
    });
    expect(updated.id).toBe(created.id);
    expect(updated.items.map((item) => shardOf(item.id))).toEqual([7, 7]);
  });

  it('nested writes from a db-keyed parent: create, createMany, connectOrCreate and upsert in relations', async () => {
    const customer = await prisma.customer.create({
      data: {
        email: 'nested@example.com',
        orders: {
          create: [{ total: 1, items: { createMany: { data: [{ sku: 'a' }, { sku: 'b' }] } } }],
          createMany: { data: [{ total: 2 }] },
        },
      },
      include: { orders: { include: { items: true } } },
    });
    expect(shardOf(customer.id)).toBe(1);
    expect(customer.orders.map((order) => shardOf(order.id))).toEqual([7, 7]);
    expect(customer.orders.flatMap((order) => order.items.map((item) => shardOf(item.id)))).toEqual([7, 7]);
    const absent = encodeId({ time: Date.now(), shardId: 9, sequence: 3 });
    const again = await prisma.customer.update({
      where: { id: customer.id },
      data: {
        orders: {
          connectOrCreate: { where: { id: absent }, create: { total: 3 } },
          upsert: {
            where: { id: customer.orders[0]!.id },
            create: { total: 0 },
            update: { items: { create: { sku: 'c' } } },
          },
        },
      },
      include: { orders: { include: { items: true } } },
    });
    expect(again.orders).toHaveLength(3);
    for (const order of again.orders) {
      // Shard 7 is the extension's generator: the database default or trigger would give shard 1.
      expect(shardOf(order.id)).toBe(7);
      expect(order.customerId).toBe(customer.id);
      for (const item of order.items) expect(shardOf(item.id)).toBe(7);
    }
  });

  it('a nested create of a db-keyed model takes the database id (default on PostgreSQL, trigger + AUTO_INCREMENT on MySQL)', async () => {
    const order = await prisma.order.create({
      data: { total: 9, customer: { create: { email: 'nested-db@example.com' } } },
      include: { customer: true },
    });
    expect(shardOf(order.id)).toBe(7);
    expect(shardOf(order.customer.id)).toBe(1);
    expect(order.customerId).toBe(order.customer.id);
  });

  it.runIf(mysql)('MySQL dbgenerated() + trigger: the row gets its id but create() cannot read it back', async () => {
    const client = base as unknown as MysqlClient;
    const created = await client.note.create({ data: { body: 'hello' } });
    const [row] = await db().executor.query<{ id: string }>("select id from Note where body = 'hello'");
    expect(shardOf(BigInt(row!.id))).toBe(1);
    // Prisma re-reads the row by the id it sent (none), so create() answers null: use autoincrement().
    expect(created).toBeNull();
  });

  it('works with a real generator: SnowflakeGenerator on a leased worker id', async () => {
    const snowflake = await SnowflakeGenerator.start(db().executor, { maxWorker: 100 });
    try {
      const withGenerator = withSheaf(base, snowflake);
      const { order } = await placeOrder(withGenerator, 'snowflake@example.com');
      expect(shardOf(order.id)).toBe(snowflake.workerId);
      expect(order.items[1]!.id > order.items[0]!.id).toBe(true);
    } finally {
      await snowflake.close();
    }
  });
});

describe('prisma extension options and JSON helpers', () => {
  it('refuses app-side strategies without the generated model map, and unknown models', () => {
    const generator = { next: () => 1n };
    expectSheafError(
      () => sheaf({ models: { Order: { strategy: 'snowflake', generator } } }),
      'INVALID_ARGUMENT',
      'sheaf-prisma',
    );
    expectSheafError(
      () => sheaf({ schema: mysqlModels, models: { Orders: { strategy: 'batch', generator } } }),
      'INVALID_ARGUMENT',
      'Orders',
    );
    expect(() => sheaf({ models: { Customer: { strategy: 'db' } } })).not.toThrow();
  });

  it('writes bigints as strings or js53 numbers and parses them back as checked ids', () => {
    const row = { id: 1844674407370955161n, nested: [{ orderId: 42n }], total: 3 };
    expect(JSON.stringify(row, bigintReplacer())).toBe(
      '{"id":"1844674407370955161","nested":[{"orderId":"42"}],"total":3}',
    );
    expect(toJsonSafe({ id: 42n }, 'number')).toEqual({ id: 42 });
    expectSheafError(() => JSON.stringify(row, bigintReplacer('number')), 'ID_OUT_OF_RANGE', '2^53');
    const back = JSON.parse(JSON.stringify(row, bigintReplacer()), idReviver(['id', 'orderId']));
    expect(back).toEqual(row);
    expectSheafError(() => JSON.parse('{"id":"12a"}', idReviver(['id'])), 'INVALID_ID');
  });
});
