import type { SqlExecutor } from '../executor.js';
import type { Claimant } from './registry.js';

/** How the installer reads and sets a database's place in the id space (version {@link from} on). */
export interface IdSpaceInstall {
  /** The file version that adds the id space. */
  readonly from: number;
  /** One row, `present` truthy once the settings table exists (safe to run before install). */
  readonly settingsPresent: string;
  /** One row, `present` truthy once the settings have a database_id (safe to run before install). */
  readonly present: string;
  /** One row: `database_id`, `database_name`. */
  readonly identity: string;
  /** One row, `name`: what a fresh install will call this database. */
  readonly freshName: string;
  /** (database_id, shard as text): the id a fresh id space takes, and the shard registered elsewhere. */
  readonly declare: string;
  /** (registry description or null) → sets where this database's shards are registered. */
  readonly useRegistry: string;
  /** (shard) → `last_ms` of a value this database gave back, as configure recorded it. */
  readonly releasedAt: string;
}

export const postgresIdSpace: IdSpaceInstall = {
  from: 9,
  settingsPresent: "select to_regclass('sheaf.settings') is not null as present",
  present: `select exists (select from information_schema.columns where table_schema = 'sheaf'
    and table_name = 'settings' and column_name = 'database_id') as present`,
  identity: 'select database_id::text as database_id, database_name from sheaf.settings',
  freshName: `select current_database() || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '')
    as name`,
  declare: "select set_config('sheaf.database_id', $1, true), set_config('sheaf.registered_shard', $2, true)",
  useRegistry: 'update sheaf.settings set registry = $1',
  releasedAt: "select last_timestamp_ms::text as last_ms from sheaf.workers where worker_id = $1 and kind = 'worker'",
};

/** `{home}` and `{home_text}`: where sheaf's tables are (filled in by mysqlInstall's bind). */
export const mysqlIdSpace: IdSpaceInstall = {
  from: 6,
  settingsPresent: `select count(*) as present from information_schema.tables where table_schema = {home_text}
    and table_name = 'sheaf_settings'`,
  present: `select count(*) as present from information_schema.columns where table_schema = {home_text}
    and table_name = 'sheaf_settings' and column_name = 'database_id'`,
  identity: 'select database_id, database_name from {home}.sheaf_settings where singleton = 1',
  freshName: "select concat(database(), ' on ', @@hostname, ':', @@port) as name",
  declare: 'set @sheaf_database_id = ?, @sheaf_registered_shard = ?',
  useRegistry: 'update {home}.sheaf_settings set registry = ? where singleton = 1',
  releasedAt: "select last_timestamp_ms as last_ms from {home}.sheaf_workers where worker_id = ? and kind = 'worker'",
};

/** The database's id and name: as recorded once it has an id space, else those a fresh one will take. */
export async function claimantOf(session: SqlExecutor, sql: IdSpaceInstall): Promise<Claimant> {
  const [present] = await session.query<{ present: unknown }>(sql.present);
  if (present?.present === true || Number(present?.present) > 0) {
    const [row] = await session.query<{ database_id: unknown; database_name: unknown }>(sql.identity);
    if (row?.database_id != null) return { databaseId: String(row.database_id), name: String(row.database_name) };
  }
  const [fresh] = await session.query<{ name: unknown }>(sql.freshName);
  return { databaseId: globalThis.crypto.randomUUID(), name: String(fresh?.name) };
}
