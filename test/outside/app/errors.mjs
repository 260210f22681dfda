// The errors an app meets first, from plain JavaScript on PostgreSQL: extendKnex(knex) on the
// instance it queries with (docs/guides/knex.md) and on something else, new SnowflakeGenerator(…)
// instead of SnowflakeGenerator.start(…), and next_id() in a read-only transaction, through an
// executor and through knex. Prints each outcome as JSON.
import { fromDatabaseError, pgExecutor, SnowflakeGenerator } from '@sheaf/core';
import { extendKnex, sheafId } from '@sheaf/knex';
import Knex from 'knex';
import pg from 'pg';

/** The code and message of what `fn` threw or rejected with, after `fromDatabaseError`. */
async function outcome(fn) {
  try {
    await fn();
    return { code: null };
  } catch (error) {
    const converted = fromDatabaseError(error);
    return { code: converted.code ?? null, name: converted.name, message: converted.message };
  }
}

const knex = Knex({ client: 'pg', connection: process.env.DATABASE_URL });
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
try {
  extendKnex(knex);
  extendKnex(knex);
  await knex.schema.createTable('errors_orders', (table) => {
    sheafId(table, 'id');
    table.string('customer', 100).notNullable();
  });
  const ids = await knex('errors_orders').insertWithIds([{ customer: 'ada' }, { customer: 'bob' }]);
  const executor = pgExecutor(pool);
  const result = {
    ids: ids.map(String),
    extendConfig: await outcome(() => extendKnex({ client: 'pg', connection: process.env.DATABASE_URL })),
    newSnowflake: await outcome(() => new SnowflakeGenerator(executor, { layout: 'sheaf' })),
    readOnly: await executor.session(async (session) => {
      await session.query('begin transaction read only');
      try {
        return await outcome(() => session.query('select sheaf.next_id()'));
      } finally {
        await session.query('rollback');
      }
    }),
    readOnlyKnex: await outcome(() => knex.transaction((trx) => trx.raw('select sheaf.next_id()'), { readOnly: true })),
  };
  console.log(JSON.stringify(result));
} finally {
  await knex.destroy();
  await pool.end();
}
