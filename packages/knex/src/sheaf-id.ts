import {
  type Dialect,
  type Layout,
  nextIdSql,
  type PresetName,
  requireInstalled,
  type SqlExecutor,
  sheafTriggerSql,
} from '@sheaf/core';
import type { Knex } from 'knex';
import { dialectOfClient, type KnexClientLike } from './dialect.js';
import { rowsOf } from './executor.js';

/**
 * Options of {@link sheafId}.
 *
 * @example
 * const options: SheafIdColumnOptions = { shard: 3 };
 */
export interface SheafIdColumnOptions {
  /** Make the column the primary key (default true). */
  readonly primaryKey?: boolean;
  /** PostgreSQL: generate for this logical shard, `sheaf.next_id(shard)`. */
  readonly shard?: number;
  /** MySQL: the trigger's name (default `<table>_sheaf_id`). */
  readonly triggerName?: string;
  /** MySQL: the layout the database was installed with, whose largest id the trigger enforces (default `sheaf`). */
  readonly layout?: Layout | PresetName;
  /**
   * MySQL: the database the migration runs in, so that the trigger calls sheaf's own routine in
   * `sheaf_<database>`, which no grant on the application's database can replace (docs/security.md).
   * Default: the database the knex connection config names (`connection.database`, or the path of
   * the connection URL or of mysql2's `connection.uri`).
   */
  readonly database?: string;
}

/** The knex internals read here: the client, the table name, and the statement list (knex 2–3). */
interface TableBuilderInternals {
  readonly client: KnexClientLike & { raw(sql: string): Knex.Raw; readonly config?: { readonly connection?: unknown } };
  readonly _tableName: string;
  readonly _statements: Array<{ grouping: string; method: string; args: unknown[] }>;
}

/**
 * Adds a sheaf id column in a migration. PostgreSQL: `bigint not null default sheaf.next_id()`.
 * MySQL/MariaDB, whose defaults cannot call functions: `bigint not null auto_increment` plus the
 * sheaf `BEFORE INSERT` trigger, created right after the table in the same migration (so a
 * single-row insert's `insertId` is the sheaf id); dropping the table drops the trigger.
 * Before its table is created or altered, the migration checks that sheaf is installed and fails
 * with NOT_INSTALLED if not (MySQL would accept the trigger and fail the first insert instead).
 *
 * @example
 * await knex.schema.createTable('orders', (table) => {
 *   sheafId(table, 'id');
 *   table.integer('total').notNullable();
 * });
 */
export function sheafId(
  table: Knex.CreateTableBuilder | Knex.AlterTableBuilder,
  column = 'id',
  options: SheafIdColumnOptions = {},
): Knex.ColumnBuilder {
  const internals = table as unknown as TableBuilderInternals;
  const primaryKey = options.primaryKey ?? true;
  const dialect = dialectOfClient(internals.client);
  // unshiftQuery: before the CREATE TABLE, so that a refused migration leaves no table behind on MySQL.
  internals._statements.push({ grouping: 'alterTable', method: 'unshiftQuery', args: [installCheck(dialect)] });
  if (dialect.functionDefaults) {
    const built = table
      .bigInteger(column)
      .notNullable()
      .defaultTo(internals.client.raw(nextIdSql(options.shard)));
    return primaryKey ? built.primary() : built;
  }
  // AUTO_INCREMENT needs a key; without one the trigger replaces the 0 default instead.
  const type = primaryKey ? 'bigint not null auto_increment primary key' : 'bigint not null default 0';
  const built = table.specificType(column, type);
  const trigger = sheafTriggerSql(internals._tableName, column, {
    name: options.triggerName,
    layout: options.layout,
    database: options.database ?? configuredDatabase(internals.client.config?.connection),
  });
  // TableCompiler runs 'alterTable' statements after the create, calling the named method with args.
  internals._statements.push({
    grouping: 'alterTable',
    method: 'pushQuery',
    args: [{ sql: trigger.create, bindings: [] }],
  });
  return built;
}

/** A knex runner: the client and connection a migration's statements run on. */
interface RunnerLike {
  readonly client: { raw(sql: string): Knex.Raw };
  readonly connection: unknown;
}

/**
 * A statement whose `output` (which knex calls with the runner, and awaits) checks the install on
 * the migration's own connection: inside its transaction, where there is one.
 */
function installCheck(dialect: Dialect) {
  return {
    sql: 'select 1',
    bindings: [],
    output(this: RunnerLike) {
      const { client, connection } = this;
      const executor: SqlExecutor = {
        dialect,
        query: async <R extends object>(sql: string) => rowsOf(await client.raw(sql).connection(connection)) as R[],
        session: (fn) => fn(executor),
      };
      return requireInstalled(executor);
    },
  };
}

/**
 * The database a knex connection config names: `{ database }`, or the path of a connection URL
 * given as the config itself or as mysql2's `{ uri }`.
 */
function configuredDatabase(connection: unknown): string | undefined {
  if (typeof connection === 'string') {
    const path = URL.canParse(connection) ? new URL(connection).pathname.slice(1) : '';
    return path === '' ? undefined : decodeURIComponent(path);
  }
  if (typeof connection !== 'object' || connection === null) return undefined;
  const { database, uri } = connection as { database?: unknown; uri?: unknown };
  if (typeof database === 'string' && database !== '') return database;
  return typeof uri === 'string' ? configuredDatabase(uri) : undefined;
}
