export type { Dialect, DialectName } from './dialects/dialect.js';
export { mysqlDialect } from './dialects/mysql.js';
export { postgresDialect } from './dialects/postgres.js';
export { isSheafError, SheafError, type SheafErrorCode, type SheafErrorOptions, sheafErrorCodes } from './errors.js';
export type { Row, SqlExecutor } from './executor.js';
export { type Database, executorOf } from './executors/executor-of.js';
export { type MariadbConnectionLike, type MariadbPoolLike, mariadbExecutor } from './executors/mariadb.js';
export { type Mysql2ConnectionLike, type Mysql2PoolLike, mysql2Executor } from './executors/mysql2.js';
export { type PgClientLike, type PgPoolLike, pgExecutor } from './executors/pg.js';
export { type PGliteLike, pgliteExecutor } from './executors/pglite.js';
export {
  BatchedDbIds,
  type BatchedDbIdsOptions,
} from './generators/batched/db-ids.js';
export { type LeafAllocOptions, type LeafAllocSource, leafAllocSource } from './generators/leaf/source.js';
export {
  SegmentGenerator,
  type SegmentGeneratorOptions,
  type SegmentStats,
} from './generators/segments/generator.js';
export type { SegmentDatabaseStatus } from './generators/segments/source.js';
export { type Clock, systemClock } from './generators/shared/clock.js';
export type { IdKind, IdOf } from './generators/shared/id-kind.js';
export type { RetryOptions } from './generators/shared/options.js';
export {
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
  type SnowflakeStats,
} from './generators/snowflake/generator.js';
export { type ClassicTicketsOptions, classicTickets } from './generators/tickets/classic/tickets.js';
export {
  TicketClient,
  type TicketClientOptions,
  type TicketServerStatus,
} from './generators/tickets/client.js';
export { type TicketOverlap, type TicketSeries, ticketOverlap } from './generators/tickets/overlap.js';
export type { TicketSource } from './generators/tickets/source.js';
export { auditGrants } from './grants/audit.js';
export type { GrantFinding, OwnershipFinding } from './grants/findings.js';
export { type GrantOptions, type GrantResult, grant } from './grants/grant.js';
export { type MysqlAccount, mysqlAccount, mysqlAppGrants } from './grants/mysql.js';
export { auditOwnership } from './grants/ownership.js';
export { type DecodedId, decodeId, encodeId, type IdParts, idCeiling, idFloor } from './id.js';
export {
  type InstallOptions,
  type InstallResult,
  install,
  type UninstallOptions,
  uninstall,
} from './install/install.js';
export { inState, type MysqlState, mysqlState, mysqlStateOf } from './install/mysql-state.js';
export { requireInstalled } from './install/require-installed.js';
export {
  type InstallScript,
  type InstallScriptOptions,
  installScript,
  sqlVersion,
  uninstallScript,
} from './install/script.js';
export { defineLayout, type Layout, type LayoutOptions } from './layout.js';
export { layoutLifetime } from './layout-lifetime.js';
export { type SheafTriggerOptions, type SheafTriggerSql, sheafTriggerSql } from './mysql-trigger.js';
export { nextIdSql } from './next-id-sql.js';
export { checkExplicitId, parseId } from './parse-id.js';
export { defaultLayout, layoutByName, type PresetName, presets } from './presets.js';
export { fromDatabaseError, sqlStates } from './sql-errors.js';
