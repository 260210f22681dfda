// The example of docs/guides/prisma.md, run by test/integration/prisma.test.ts on each database.
import { bigintReplacer, idReviver, type PrismaIdSource, sheaf } from '@sheaf/prisma';
import type { PrismaClient } from '../../../../test/.generated/prisma/postgres/client.js';
import { sheafModels } from '../../../../test/.generated/prisma/postgres/sheaf/models.js';

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
