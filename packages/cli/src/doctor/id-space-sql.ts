import type { DialectName } from '@sheaf/core';

/** The tables the id space is read from, by role. */
export type IdSpaceTable = 'settings' | 'workers' | 'logicalShards' | 'tickets';

/**
 * Where the id space lives on each dialect, as parallel pieces of SQL. Columns added by later SQL
 * versions (workers.kind, settings.database_id, …) are looked up in `columns`, never assumed.
 */
export interface IdSpaceSql {
  /** Each table as the catalog names it. */
  readonly tables: Readonly<Record<IdSpaceTable, string>>;
  /** Each table as a query names it. */
  readonly qualified: Readonly<Record<IdSpaceTable, string>>;
  /** `table_name, column_name` of every column of the tables above that exists. */
  readonly columns: string;
  /** True while a row of `workers` holds its value until a time (a live lease, a pending claim). */
  readonly unexpired: string;
  /** True when a row of `workers` has an expiry at all: a 'database' row with one is a pending claim. */
  readonly expiring: string;
  /** The unix ms of the row's last heartbeat (a claim's: when it was made). */
  readonly heartbeatMs: string;
  /** The column of `tickets` holding the offset. */
  readonly ticketOffset: string;
}

const pgTables = { settings: 'settings', workers: 'workers', logicalShards: 'logical_shards', tickets: 'tickets' };
const mysqlTables = {
  settings: 'sheaf_settings',
  workers: 'sheaf_workers',
  logicalShards: 'sheaf_logical_shards',
  tickets: 'sheaf_tickets',
};
const names = (tables: Record<IdSpaceTable, string>) =>
  Object.values(tables)
    .map((table) => `'${table}'`)
    .join(', ');

export const idSpaceSql: Record<DialectName, IdSpaceSql> = {
  postgres: {
    tables: pgTables,
    qualified: {
      settings: 'sheaf.settings',
      workers: 'sheaf.workers',
      logicalShards: 'sheaf.logical_shards',
      tickets: 'sheaf.tickets',
    },
    // pg_catalog, not information_schema: the latter hides tables the role has no privilege on,
    // which would pass for an older version instead of failing as unreadable.
    columns: `select c.relname as table_name, a.attname as column_name
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'sheaf' and c.relname in (${names(pgTables)}) and a.attnum > 0 and not a.attisdropped`,
    unexpired: 'expires_at >= clock_timestamp()',
    expiring: 'expires_at is not null',
    heartbeatMs: 'floor(extract(epoch from heartbeat_at) * 1000)::bigint',
    ticketOffset: '"offset"',
  },
  mysql: {
    tables: mysqlTables,
    qualified: {
      settings: '{state}.sheaf_settings',
      workers: '{state}.sheaf_workers',
      logicalShards: '{state}.sheaf_logical_shards',
      tickets: '{state}.sheaf_tickets',
    },
    columns: `select table_name as table_name, column_name as column_name from information_schema.columns
      where table_schema = {state_text} and table_name in (${names(mysqlTables)})`,
    // SYSDATE, not NOW(): NOW() is frozen at the start of the statement.
    unexpired: 'expires_ms >= floor(unix_timestamp(sysdate(3)) * 1000)',
    expiring: 'expires_ms is not null',
    heartbeatMs: 'heartbeat_ms',
    ticketOffset: 'ticket_offset',
  },
};
