// Drizzle on a MariaDB table that the packed `sheaf migrate --no-auto-increment --apply` converted, as
// docs/guides/drizzle.md says: sheafId({ ids }) fed by an app-side generator, $returningId() for one
// row and for two; prints what it returned beside the ids the table holds.
import { mysql2Executor, SnowflakeGenerator } from '@sheaf/core';
import { sheafId } from '@sheaf/drizzle/mysql-core';
import { mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { drizzle } from 'drizzle-orm/mysql2';
import mysql from 'mysql2/promise';

// BIGINT as exact strings: without these mysql2 rounds ids to JavaScript numbers.
const pool = mysql.createPool({ uri: process.env.DATABASE_URL, supportBigNumbers: true, bigNumberStrings: true });
const snowflake = await SnowflakeGenerator.start(mysql2Executor(pool));
try {
  const orders = mysqlTable('orders', {
    id: sheafId({ ids: () => snowflake.next() }).primaryKey(),
    item: varchar('item', { length: 40 }).notNull(),
  });
  const db = drizzle(pool);
  const one = await db.insert(orders).values({ item: 'tea' }).$returningId();
  const two = await db
    .insert(orders)
    .values([{ item: 'rice' }, { item: 'ink' }])
    .$returningId();
  const [rows] = await pool.query('select id, item from orders order by id');
  console.log(
    JSON.stringify({
      returned: [...one, ...two].map((row) => String(row.id)),
      stored: rows.map((row) => ({ id: String(row.id), item: row.item })),
      workerId: snowflake.workerId,
    }),
  );
} finally {
  await snowflake.close();
  await pool.end();
}
