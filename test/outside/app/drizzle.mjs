// Drizzle on PostgreSQL, as docs/guides/drizzle.md: sheafId() from @sheaf/drizzle/pg-core, the
// table as drizzle-kit would create it, rows inserted with returning().
import { decodeSheafId } from '@sheaf/drizzle';
import { sheafId } from '@sheaf/drizzle/pg-core';
import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, text } from 'drizzle-orm/pg-core';
import pg from 'pg';

const notes = pgTable('drizzle_notes', { id: sheafId().primaryKey(), body: text('body').notNull() });

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
try {
  await pool.query(
    'create table drizzle_notes (id bigint primary key default sheaf.next_id() not null, body text not null)',
  );
  const rows = await drizzle(pool)
    .insert(notes)
    .values([{ body: 'a' }, { body: 'b' }, { body: 'c' }])
    .returning();
  const ids = rows.map((row) => row.id);
  console.log(JSON.stringify({ ids: ids.map(String), shards: ids.map((id) => decodeSheafId(id).shardId) }));
} finally {
  await pool.end();
}
