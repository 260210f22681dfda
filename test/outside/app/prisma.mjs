// Prisma 7 on PostgreSQL, as docs/guides/prisma.md: a client generated in this app with the
// sheaf-prisma model map; customers keyed by the database, their orders (a nested create) by a
// SnowflakeGenerator through the extension. Run with `node --import tsx` (the client is TypeScript).
import { PrismaPg } from '@prisma/adapter-pg';
import { pgExecutor, SnowflakeGenerator } from '@sheaf/core';
import { sheaf } from '@sheaf/prisma';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { sheafModels } from './generated/sheaf/models.js';

const url = process.env.DATABASE_URL;
const pool = new pg.Pool({ connectionString: url });
// What the migration would do: the tables of prisma/schema.prisma.
await pool.query(`create table prisma_customers (
  id bigint primary key default sheaf.next_id(), email text not null unique)`);
await pool.query(`create table prisma_orders (id bigint primary key default sheaf.next_id(),
  customer_id bigint not null references prisma_customers (id), sku text not null)`);
const snowflake = await SnowflakeGenerator.start(pgExecutor(pool));
const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
try {
  const prisma = client.$extends(
    sheaf({
      schema: sheafModels,
      models: { Customer: { strategy: 'db' }, Order: { strategy: 'snowflake', generator: snowflake } },
    }),
  );
  const customer = await prisma.customer.create({
    data: { email: 'ada@example.com', orders: { create: [{ sku: 'tea' }, { sku: 'scone' }] } },
    include: { orders: true },
  });
  const orders = customer.orders.map((order) => String(order.id));
  console.log(JSON.stringify({ customer: String(customer.id), orders, workerId: snowflake.workerId }));
} finally {
  await client.$disconnect();
  await snowflake.close();
  await pool.end();
}
