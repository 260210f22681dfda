// The PostgreSQL example of docs/guides/drizzle.md, run by test/integration/drizzle.test.ts and, with
// several processes writing one table at once, by test/guides/drizzle-setup.test.ts.
import { install, pgExecutor, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { decodeSheafId } from '@sheaf/drizzle';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema-pg.js';

/** Installs sheaf, applies the drizzle-kit migrations, places an order. */
export async function main(url: string, migrationsFolder: string) {
  const pool = new pg.Pool({ connectionString: url });
  try {
    // Before the migrations: their DEFAULT sheaf.next_id() needs the function.
    await install(pgExecutor(pool), { shard: 1 });
    const db = drizzle(pool, { schema });
    await migrate(db, { migrationsFolder });
    return await placeOrder(db);
  } finally {
    await pool.end();
  }
}

/**
 * Works on any drizzle PostgreSQL database: node-postgres, PGlite, postgres.js. The database keys the
 * rows, unless `ids` is given: then the application keys the order (its id known before the INSERT).
 */
export async function placeOrder(
  db: PgDatabase<PgQueryResultHKT, typeof schema>,
  { customer = 'ada', ids }: { customer?: string; ids?: () => bigint } = {},
) {
  const [order] = await db.insert(schema.orders).values({ id: ids?.(), customer }).returning();
  if (!order) throw new Error('insert returned no row');
  await db.insert(schema.orderItems).values([
    { orderId: order.id, sku: 'tea', quantity: 2 },
    { orderId: order.id, sku: 'scone', quantity: 1 },
  ]);
  // Plain selects, not db.query…({ with }): relational queries nest rows as JSON, where int8 ids
  // become rounded JSON numbers (sheaf's columns refuse them: see Caveats).
  const [placed] = await db.select().from(schema.orders).where(eq(schema.orders.id, order.id));
  const items = await db.select().from(schema.orderItems).where(eq(schema.orderItems.orderId, order.id));
  const { timestamp, shardId } = decodeSheafId(order.id);
  return { order: placed && { ...placed, items }, timestamp, shardId };
}

/**
 * The `ids` of {@link placeOrder}: a SnowflakeGenerator on a worker id of this process, which is
 * never the database's shard (one id space). `close()` it at shutdown.
 */
export function startIds(executor: SqlExecutor) {
  return SnowflakeGenerator.start(executor);
}
