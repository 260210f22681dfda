import { decodeId, install, pgliteExecutor, type SqlExecutor } from '@sheaf/core';
import { defineCommand } from '../command.js';
import type { Io } from '../io.js';

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'run the README demo on embedded PGlite (no server needed)',
  help: `
Usage: sheaf demo

sheaf on embedded, in-memory PGlite: installs the SQL, creates a table whose key defaults to
sheaf.next_id(), inserts rows and decodes their ids in SQL and in TypeScript. Leaves nothing behind.

Options:
  -h, --help         show this help
`,
  options: {},
  async run(_args, io) {
    // Loaded here, not at the top: every other command would pay for PGlite's start-up.
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create();
    try {
      await demo(pgliteExecutor(db), io);
    } finally {
      await db.close();
    }
  },
});

async function demo(sql: SqlExecutor, io: Io): Promise<void> {
  const say = (line = '') => io.out(`${line}\n`);
  const [server] = await sql.query<{ server_version: string }>('show server_version');
  say(`sheaf demo on embedded PGlite (PostgreSQL ${server?.server_version ?? '?'})\n`);

  const { version } = await install(sql, { shard: 42 });
  say(`installed sheaf SQL version ${version}: shard 42, layout sheaf (41 time, 12 shard, 10 sequence bits)`);
  const ddl = 'create table orders (id bigint primary key default sheaf.next_id(), item text not null)';
  await sql.query(ddl);
  say(`${ddl}\n`);

  const items = ['tea', 'rice', 'paper', 'ink', 'brush', 'silk'];
  await sql.query('insert into orders (item) select unnest($1::text[])', [items]);
  await sql.query("insert into orders (item) select 'bulk' from generate_series(1, 3000)");
  say(`inserted ${items.length} rows, then 3000 in one statement (more than one millisecond holds)\n`);

  await showRows(sql, say);
  await showStats(sql, say);
}

async function showRows(sql: SqlExecutor, say: (line?: string) => void): Promise<void> {
  const rows = await sql.query<{ id: string; item: string; created_at: Date; shard_id: number; sequence: number }>(
    `select o.id, o.item, d.created_at, d.shard_id, d.sequence
     from orders o, sheaf.decode_id(o.id) d where o.item <> 'bulk' order by o.id`,
  );
  say(['id'.padEnd(20), 'created_at'.padEnd(25), 'shard', 'seq ', 'item'].join('  '));
  for (const row of rows) {
    const fromTs = decodeId(row.id);
    if (fromTs.ms !== row.created_at.getTime() || fromTs.shardId !== row.shard_id || fromTs.sequence !== row.sequence) {
      throw new Error(`decode mismatch for ${row.id}`);
    }
    const cells = [String(row.id).padEnd(20), row.created_at.toISOString().padEnd(25), String(row.shard_id).padEnd(5)];
    say([...cells, String(row.sequence).padEnd(4), row.item].join('  '));
  }
  say('\nsheaf.decode_id (SQL) and decodeId (TypeScript) agree on every row.');
}

async function showStats(sql: SqlExecutor, say: (line?: string) => void): Promise<void> {
  const [stats] = await sql.query<{ total: number; distinct_ids: number; ms: number }>(
    `select count(*)::int as total, count(distinct id)::int as distinct_ids,
       count(distinct (id >> 22))::int as ms from orders`,
  );
  say(`${stats?.total} rows, ${stats?.distinct_ids} distinct ids over ${stats?.ms} milliseconds`);
  const [recent] = await sql.query<{ n: number }>(
    `select count(*)::int as n from orders
     where id between sheaf.id_floor(now() - interval '1 minute') and sheaf.id_ceiling(now() + interval '1 minute')`,
  );
  say(`rows of the last minute through the primary key (id_floor .. id_ceiling): ${recent?.n}`);
}
