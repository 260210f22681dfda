// The example of docs/guides/prisma.md, run by test/integration/prisma.test.ts on each database.
import { PrismaPg } from '@prisma/adapter-pg';
import { install, pgExecutor, SnowflakeGenerator } from '@sheaf/core';
import { bigintReplacer, idReviver, type PrismaIdSource, sheaf } from '@sheaf/prisma';
import pg from 'pg';
import { PrismaClient } from '../../../../test/.generated/prisma/postgres/client.js';
import { sheafModels } from '../../../../test/.generated/prisma/postgres/sheaf/models.js';
import { postgresMigration } from './migration.js';

/**
 * The whole program on PostgreSQL: installs sheaf (shard 1), applies the migration, leases a worker
 * id for a SnowflakeGenerator and places an order through Prisma.
 */
export async function main(url: string, email: string) {
  const pool = new pg.Pool({ connectionString: url });
  const executor = pgExecutor(pool);
  await install(executor, { shard: 1 });
  for (const statement of postgresMigration) await executor.query(statement);
  const snowflake = await SnowflakeGenerator.start(executor);
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  try {
    return { workerId: snowflake.workerId, ...(await placeOrder(withSheaf(prisma, snowflake), email)) };
  } finally {
    await prisma.$disconnect();
    await snowflake.close();
    await pool.end();
  }
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
