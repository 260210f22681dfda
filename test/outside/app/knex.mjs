// Knex on PostgreSQL, as docs/guides/knex.md: a table keyed by sheafId(), rows inserted with
// insertWithIds. Prints the ids it got back and the ids stored.
import { insertWithIds, sheafId } from '@sheaf/knex';
import knex from 'knex';

const db = knex({ client: 'pg', connection: process.env.DATABASE_URL });
try {
  await db.schema.createTable('knex_orders', (table) => {
    sheafId(table, 'id');
    table.string('customer', 100).notNullable();
  });
  const ids = await insertWithIds(db, 'knex_orders', [{ customer: 'ada' }, { customer: 'bob' }, { customer: 'cy' }]);
  const rows = await db('knex_orders').orderBy('id');
  console.log(JSON.stringify({ ids: ids.map(String), stored: rows.map((row) => String(row.id)) }));
} finally {
  await db.destroy();
}
