// The MySQL/MariaDB example of docs/guides/drizzle.md, run by test/integration/drizzle.test.ts and, with
// several processes writing one table at once, by test/guides/drizzle-setup.test.ts.
import { install, mysql2Executor, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { decodeSheafId } from '@sheaf/drizzle';
import { eq } from 'drizzle-orm';
import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import mysql from 'mysql2/promise';
import { useIds } from './ids.js';
import * as schema from './schema-mysql.js';

/** Installs sheaf, starts a generator, applies the drizzle-kit migrations, places an order. */
export async function main(url: string, migrationsFolder: string) {
  // BIGINT as exact strings: without these mysql2 rounds ids to JavaScript numbers.
  const pool = mysql.createPool({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  const executor = mysql2Executor(pool);
  await install(executor, { shard: 1 });
  const snowflake = await startIds(executor);
  try {
    const db = drizzle(pool, { schema, mode: 'default' });
    await migrate(db, { migrationsFolder });
    return await placeOrder(db);
  } finally {
    await snowflake.close();
    await pool.end();
  }
}

/**
 * At start-up of each process: a SnowflakeGenerator on a worker id of its own, which is never the
 * database's shard (one id space), feeds the schema's `$defaultFn`. `close()` it at shutdown.
 */
export async function startIds(executor: SqlExecutor) {
  const snowflake = await SnowflakeGenerator.start(executor);
  useIds(() => snowflake.next());
  return snowflake;
}

/** Works on any drizzle MySQL database once `useIds()` has a source. */
export async function placeOrder(db: MySql2Database<typeof schema>) {
  const [order] = await db.insert(schema.orders).values({ customer: 'ada' }).$returningId();
  if (!order) throw new Error('insert returned no id');
  const itemIds = await db
    .insert(schema.orderItems)
    .values([
      { orderId: order.id, sku: 'tea', quantity: 2 },
      { orderId: order.id, sku: 'scone', quantity: 1 },
    ])
    .$returningId();
  // Plain selects, not db.query…({ with }): relational queries nest rows as JSON, where int8 ids
  // become rounded JSON numbers (sheaf's columns refuse them: see Caveats).
  const [placed] = await db.select().from(schema.orders).where(eq(schema.orders.id, order.id));
  const items = await db.select().from(schema.orderItems).where(eq(schema.orderItems.orderId, order.id));
  const { timestamp, shardId } = decodeSheafId(order.id);
  return { order: placed && { ...placed, items }, itemIds: itemIds.map((item) => item.id), timestamp, shardId };
}
