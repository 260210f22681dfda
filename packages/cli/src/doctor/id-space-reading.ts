import { inState, type SqlExecutor } from '@sheaf/core';
import { type IdSpaceSql, type IdSpaceTable, idSpaceSql } from './id-space-sql.js';

/**
 * A row of `sheaf.workers` that holds its value: a live worker-id lease, or (from SQL version
 * 0009 / MySQL 0006 on) a 'database' row saying which database issues that shard.
 */
export interface HolderRow {
  readonly value: number;
  readonly kind: 'worker' | 'database';
  /** The worker's holder text ("pid 12 on host"), or the registered database's name. */
  readonly holder: string;
  /** The database a 'database' row is for. */
  readonly databaseId?: string;
  /** A 'database' row whose install has not confirmed it yet. */
  readonly pending: boolean;
  /** The row's last heartbeat in unix ms (for a claim: when it was made). */
  readonly heartbeatMs?: number;
}

/** One `tickets` row: this server hands out `offset + k·step`. */
export interface TicketRow {
  readonly name: string;
  readonly step: number;
  readonly offset: number;
}

/** What one database holds of the shared id space; fields of later SQL versions are undefined before them. */
export interface IdSpaceReading {
  /** The database's own id (`settings.database_id`): two URLs with one id are one database. */
  readonly databaseId?: string;
  /** Where this database's shards are registered, `name (database_id)`; undefined when it is its own registry. */
  readonly registry?: string;
  readonly logicalShards: readonly number[];
  /** Undefined where there is no workers table (before version 6 on PostgreSQL). */
  readonly holders?: readonly HolderRow[];
  readonly tickets: readonly TicketRow[];
}

type Columns = Map<IdSpaceTable, Set<string>>;

/** Reads the database's shard values, worker leases, registered databases and tickets. */
export async function readIdSpace(executor: SqlExecutor): Promise<IdSpaceReading> {
  const sql = await inState(executor, idSpaceSql[executor.dialect.name]);
  const columns = await catalog(executor, sql);
  const has = (table: IdSpaceTable, column: string) => columns.get(table)?.has(column) ?? false;
  // A column of a later version reads as null before it exists.
  const column = (table: IdSpaceTable, name: string) => (has(table, name) ? name : `null as ${name}`);
  const [identity] = await executor.query<Record<string, unknown>>(
    `select ${['database_id', 'registry'].map((name) => column('settings', name)).join(', ')}
      from ${sql.qualified.settings}`,
  );
  const logical = columns.has('logicalShards')
    ? await executor.query<{ shard_id: unknown }>(`select shard_id from ${sql.qualified.logicalShards}`)
    : [];
  const tickets = columns.has('tickets')
    ? await executor.query<Record<string, unknown>>(
        `select name, step, ${sql.ticketOffset} as ticket_offset from ${sql.qualified.tickets} order by name`,
      )
    : [];
  return {
    ...optionalText('databaseId', identity?.database_id),
    ...optionalText('registry', identity?.registry),
    logicalShards: logical.map((row) => Number(row.shard_id)),
    ...(columns.has('workers') ? { holders: await holders(executor, sql, has('workers', 'kind')) } : {}),
    tickets: tickets.map((row) => ({
      name: String(row.name),
      step: Number(row.step),
      offset: Number(row.ticket_offset),
    })),
  };
}

async function catalog(executor: SqlExecutor, sql: IdSpaceSql): Promise<Columns> {
  const roles = new Map(Object.entries(sql.tables).map(([role, table]) => [table, role as IdSpaceTable]));
  const columns: Columns = new Map();
  for (const row of await executor.query<{ table_name: unknown; column_name: unknown }>(sql.columns)) {
    const role = roles.get(String(row.table_name));
    if (role === undefined) continue;
    columns.set(role, (columns.get(role) ?? new Set()).add(String(row.column_name)));
  }
  return columns;
}

// Before the kind column every row is a worker lease. 'database' rows are read whatever their
// expiry: a pending claim expires at 'infinity' and must not pass for a live lease.
async function holders(executor: SqlExecutor, sql: IdSpaceSql, hasKind: boolean): Promise<HolderRow[]> {
  const [kind, where] = hasKind
    ? ['kind, database_id', `kind = 'database' or (kind = 'worker' and ${sql.unexpired})`]
    : ["'worker' as kind, null as database_id", sql.unexpired];
  const rows = await executor.query<Record<string, unknown>>(
    `select worker_id, ${kind}, holder, case when ${sql.expiring} then 1 else 0 end as expiring,
      ${sql.heartbeatMs} as heartbeat_ms from ${sql.qualified.workers} where ${where} order by worker_id`,
  );
  return rows.map((row) => {
    const isDatabase = row.kind === 'database';
    return {
      value: Number(row.worker_id),
      kind: isDatabase ? 'database' : 'worker',
      holder: row.holder == null ? '' : String(row.holder),
      ...optionalText('databaseId', row.database_id),
      pending: isDatabase && Number(row.expiring) === 1,
      ...(row.heartbeat_ms == null ? {} : { heartbeatMs: Number(row.heartbeat_ms) }),
    };
  });
}

function optionalText<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (value == null ? {} : { [key]: String(value) }) as { [P in K]?: string };
}
