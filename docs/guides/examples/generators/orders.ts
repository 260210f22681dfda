// The setup of docs/generators.md with the database's ids and the application's in one table, run by
// test/guides/generators-setup.test.ts on PostgreSQL, MariaDB and PGlite.
import { BatchedDbIds, install, SnowflakeGenerator, type SqlExecutor, sheafTriggerSql } from '@sheaf/core';

/**
 * Deploy step: sheaf with the database on shard 1, and a table whose key the database fills when an
 * INSERT brings none: `default sheaf.next_id()` on PostgreSQL, the sheaf trigger on MySQL/MariaDB.
 */
export async function migrate(executor: SqlExecutor): Promise<void> {
  await install(executor, { shard: 1 });
  if (executor.dialect.functionDefaults) {
    await executor.query('create table orders (id bigint primary key default sheaf.next_id(), total integer not null)');
  } else {
    await executor.query('create table orders (id bigint not null primary key, total integer not null)');
    // Named, the trigger calls sheaf's own function in sheaf_<database>, out of reach of the
    // database's other accounts (docs/security.md).
    const [row] = await executor.query<{ name: string }>('select database() as name');
    await executor.query(sheafTriggerSql('orders', 'id', { database: row?.name }).create);
  }
}

/**
 * What each application process starts: a SnowflakeGenerator on a worker id of its own (the
 * database skips its own shard when leasing) and a buffer of the database's ids.
 */
export async function startIds(executor: SqlExecutor) {
  const snowflake = await SnowflakeGenerator.start(executor, { layout: 'sheaf' });
  const batched = new BatchedDbIds(executor, { batchSize: 1000 });
  return {
    snowflake,
    batched,
    async close() {
      await batched.close();
      await snowflake.close();
    },
  };
}

/** Inserts an order keyed by the application when `id` is given, by the database otherwise. */
export async function insertOrder(executor: SqlExecutor, total: number, id?: bigint): Promise<void> {
  const [first, second] = [executor.dialect.placeholder(1), executor.dialect.placeholder(2)];
  if (id === undefined) await executor.query(`insert into orders (total) values (${first})`, [total]);
  else await executor.query(`insert into orders (id, total) values (${first}, ${second})`, [id.toString(), total]);
}
