import { decodeId, install, pgliteExecutor, type SqlExecutor } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { toJson } from '../io.js';

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'run the README demo on embedded PGlite (no server needed)',
  help: `
Usage: sheaf demo [--json]

sheaf on embedded, in-memory PGlite: installs the SQL, creates a table whose key defaults to
sheaf.next_id(), inserts rows and decodes their ids in SQL and in TypeScript. Leaves nothing behind.

Options:
  --json             print { server, version, shard, rows: [{ id, item, createdAt, shardId,
                     sequence }], total, distinctIds, milliseconds, lastMinute } instead
  -h, --help         show this help
`,
  options: { json: { type: 'boolean' } },
  async run(args, io) {
    // Loaded here, not at the top: every other command would pay for PGlite's start-up.
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create();
    try {
      const result = await demo(pgliteExecutor(db));
      io.out(flag(args, 'json') ? toJson(result) : render(result));
    } finally {
      await db.close();
    }
  },
});

const shard = 42;
const items = ['tea', 'rice', 'paper', 'ink', 'brush', 'silk'];
const ddl = 'create table orders (id bigint primary key default sheaf.next_id(), item text not null)';

interface DemoRow {
  id: string;
  item: string;
  createdAt: string;
  shardId: number;
  sequence: number;
}

interface DemoResult {
  server: string;
  version: number;
  shard: number;
  rows: DemoRow[];
  total: number;
  distinctIds: number;
  milliseconds: number;
  lastMinute: number;
}

async function demo(sql: SqlExecutor): Promise<DemoResult> {
  const [server] = await sql.query<{ server_version: string }>('show server_version');
  const { version } = await install(sql, { shard });
  await sql.query(ddl);
  await sql.query('insert into orders (item) select unnest($1::text[])', [items]);
  await sql.query("insert into orders (item) select 'bulk' from generate_series(1, 3000)");
  const [stats] = await sql.query<{ total: number; distinct_ids: number; ms: number }>(
    `select count(*)::int as total, count(distinct id)::int as distinct_ids,
       count(distinct (id >> 22))::int as ms from orders`,
  );
  const [recent] = await sql.query<{ n: number }>(
    `select count(*)::int as n from orders
     where id between sheaf.id_floor(now() - interval '1 minute') and sheaf.id_ceiling(now() + interval '1 minute')`,
  );
  return {
    server: server?.server_version ?? '?',
    version,
    shard,
    rows: await decodedRows(sql),
    total: stats?.total ?? 0,
    distinctIds: stats?.distinct_ids ?? 0,
    milliseconds: stats?.ms ?? 0,
    lastMinute: recent?.n ?? 0,
  };
}

/** The named rows, decoded by sheaf.decode_id in SQL and checked against decodeId in TypeScript. */
async function decodedRows(sql: SqlExecutor): Promise<DemoRow[]> {
  const rows = await sql.query<{ id: string; item: string; created_at: Date; shard_id: number; sequence: number }>(
    `select o.id, o.item, d.created_at, d.shard_id, d.sequence
     from orders o, sheaf.decode_id(o.id) d where o.item <> 'bulk' order by o.id`,
  );
  return rows.map((row) => {
    const fromTs = decodeId(row.id);
    if (fromTs.ms !== row.created_at.getTime() || fromTs.shardId !== row.shard_id || fromTs.sequence !== row.sequence) {
      throw new Error(`decode mismatch for ${row.id}: SQL and TypeScript disagree`);
    }
    const { id, item, shard_id: shardId, sequence } = row;
    return { id: String(id), item, createdAt: row.created_at.toISOString(), shardId, sequence };
  });
}

function render(result: DemoResult): string {
  const table = result.rows.map((row) =>
    [
      row.id.padEnd(20),
      row.createdAt.padEnd(25),
      String(row.shardId).padEnd(5),
      String(row.sequence).padEnd(4),
      row.item,
    ].join('  '),
  );
  return `${[
    `sheaf demo on embedded PGlite (PostgreSQL ${result.server})\n`,
    `installed sheaf SQL version ${result.version}: shard ${result.shard}, layout sheaf (41 time, 12 shard, 10 sequence bits)`,
    `${ddl}\n`,
    `inserted ${items.length} rows, then 3000 in one statement (more than one millisecond holds)\n`,
    ['id'.padEnd(20), 'created_at'.padEnd(25), 'shard', 'seq ', 'item'].join('  '),
    ...table,
    '\nsheaf.decode_id (SQL) and decodeId (TypeScript) agree on every row.',
    `${result.total} rows, ${result.distinctIds} distinct ids over ${result.milliseconds} milliseconds`,
    `rows of the last minute through the primary key (id_floor .. id_ceiling): ${result.lastMinute}`,
  ].join('\n')}\n`;
}
