// The example of docs/guides/prisma.md, run by test/integration/prisma.test.ts on each database and,
// several processes writing one table with raw SQL beside them, by test/guides/prisma-setup.test.ts.
import { PrismaPg } from '@prisma/adapter-pg';
import { install, pgExecutor, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { bigintReplacer, idReviver, type PrismaIdSource, sheaf } from '@sheaf/prisma';
import pg from 'pg';
import { PrismaClient } from '../../../../test/.generated/prisma/postgres/client.js';
import { sheafModels } from '../../../../test/.generated/prisma/postgres/sheaf/models.js';
import { postgresMigration } from './migration.js';

/** The whole program on PostgreSQL: the deploy step, then one process that places an order. */
export async function main(url: string, email: string) {
  const pool = new pg.Pool({ connectionString: url });
  try {
    await migrate(pgExecutor(pool));
  } finally {
    await pool.end();
  }
  const app = await startApp(url);
  try {
    return { workerId: app.workerId, ...(await placeOrder(app.prisma, email)) };
  } finally {
    await app.close();
  }
}

/** Deploy step: installs sheaf, the database issuing shard 1, then applies the migration. */
export async function migrate(executor: SqlExecutor, migration: readonly string[] = postgresMigration) {
  await install(executor, { shard: 1 });
  for (const statement of migration) await executor.query(statement);
}

/** Each process of the application on PostgreSQL: its own pool, worker id and Prisma client. */
export async function startApp(url: string) {
  const pool = new pg.Pool({ connectionString: url });
  const { snowflake, prisma } = await startIds(
    pgExecutor(pool),
    new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }),
  );
  return {
    workerId: snowflake.workerId,
    prisma,
    async close() {
      await prisma.$disconnect();
      await snowflake.close();
      await pool.end();
    },
  };
}

/**
 * Leases a worker id for the process's SnowflakeGenerator and extends its client with it. The
 * database never hands out a worker id that is its own shard: both are values of one id space.
 */
export async function startIds(executor: SqlExecutor, client: PrismaClient) {
  const snowflake = await SnowflakeGenerator.start(executor);
  return { snowflake, prisma: withSheaf(client, snowflake) };
}

/**
 * Customers take the database's ids (`db`); orders and items take ids from an app-side generator
 * (`SnowflakeGenerator`, `SegmentGenerator`, `BatchedDbIds`), nested creates included.
 */
export function withSheaf(prisma: PrismaClient, generator: PrismaIdSource) {
  return prisma.$extends(
    sheaf({
      schema: sheafModels,
      models: {
        Customer: { strategy: 'db' },
        Order: { strategy: 'snowflake', generator },
        OrderItem: { strategy: 'snowflake', generator },
      },
    }),
  );
}

/** Places an order with nested items and returns it as JSON, ids as strings; then parses it back. */
export async function placeOrder(prisma: ReturnType<typeof withSheaf>, email: string) {
  const customer = await prisma.customer.create({ data: { email } });
  const order = await prisma.order.create({
    data: {
      total: 3,
      customer: { connect: { id: customer.id } },
      items: { create: [{ sku: 'tea' }, { sku: 'scone' }] },
    },
    include: { items: true },
  });
  const json = JSON.stringify(order, bigintReplacer());
  const parsed = JSON.parse(json, idReviver(['id', 'customerId', 'orderId']));
  return { customer, order, json, parsed };
}
