import { mysqlDialect } from '../dialects/mysql.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';

/**
 * Where sheaf keeps the state of one MySQL/MariaDB application database: the database of the
 * session (`app`) and sheaf's own database beside it (`state`), each also quoted as an identifier.
 *
 * @example
 * const { app, state }: MysqlState = mysqlState('shop'); // state: 'sheaf_shop'
 */
export interface MysqlState {
  readonly app: string;
  readonly state: string;
  /** `` `shop` `` */
  readonly appSql: string;
  /** `` `sheaf_shop` `` */
  readonly stateSql: string;
  /** A name in the state database, quoted: `` `sheaf_shop`.`sheaf_settings` ``. */
  readonly in: (name: string) => string;
}

const prefix = 'sheaf_';

/**
 * The database that holds sheaf's tables, routines and journal for the application database `app`:
 * `sheaf_<app>`. A grant on `app.*`, even ALL, does not reach it, so an application account can
 * reach sheaf's state only through the routines sheaf gives it (docs/security.md). Refuses an
 * application database name longer than 58 characters (the state's name would pass MySQL's 64).
 *
 * @example
 * mysqlState('shop').in('sheaf_settings'); // '`sheaf_shop`.`sheaf_settings`'
 */
export function mysqlState(app: string): MysqlState {
  if (typeof app !== 'string' || app === '' || app.includes('\0')) {
    throw new SheafError('INVALID_ARGUMENT', `${JSON.stringify(app)} is not a MySQL database name`, {
      details: { database: String(app) },
    });
  }
  const state = `${prefix}${app}`;
  if (state.length > 64) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `database ${app} has ${app.length} characters: sheaf keeps its state in database ${prefix}<name>, ` +
        `so the name may have at most ${64 - prefix.length}`,
      { details: { database: app, length: app.length, max: 64 - prefix.length } },
    );
  }
  const q = mysqlDialect.quoteIdent;
  return { app, state, appSql: q(app), stateSql: q(state), in: (name) => `${q(state)}.${q(name)}` };
}

/**
 * {@link mysqlState} of the session's current database. It only names the databases: whether sheaf is
 * installed there is for the caller to see.
 *
 * @example
 * const { stateSql } = await mysqlStateOf(session);
 */
export async function mysqlStateOf(session: SqlExecutor): Promise<MysqlState> {
  const [row] = await session.query<{ db: unknown }>('select database() as db');
  if (typeof row?.db !== 'string') {
    throw new SheafError('INVALID_ARGUMENT', 'the MySQL connection has no current database: name one in its URL', {
      details: { database: null },
    });
  }
  return mysqlState(row.db);
}

/**
 * `queries` (an object of SQL strings) with `{state}` naming the database that holds sheaf's tables
 * for the executor's current one, and `{state_text}` an expression of its name, on MySQL/MariaDB:
 * `sheaf_<app>`, or the application's own database where an install from before SQL version 12
 * still keeps them there. Unchanged on other dialects.
 *
 * @example
 * const sql = await inState(executor, { settings: 'select shard_id from {state}.sheaf_settings' });
 */
export async function inState<Q extends object>(executor: SqlExecutor, queries: Q): Promise<Q> {
  if (executor.dialect.name !== 'mysql') return queries;
  const names = await mysqlStateOf(executor);
  const [row] = await executor.query<{ legacy: unknown }>(
    `select count(*) as legacy from information_schema.tables
      where table_schema = database() and table_name = 'sheaf_schema_versions'`,
  );
  const legacy = Number(row?.legacy) > 0;
  // The name as an expression, not a literal, which sql_mode (backslashes) would read differently.
  const fill = (sql: string) =>
    sql
      .replaceAll('{state}', legacy ? names.appSql : names.stateSql)
      .replaceAll('{state_text}', legacy ? 'database()' : "concat('sheaf_', database())");
  return filledStrings(queries, fill);
}

/** `value` with `fill` applied to the strings anywhere in its plain objects; other values as they are. */
export function filledStrings<T>(value: T, fill: (sql: string) => string): T {
  if (typeof value === 'string') return fill(value) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, filledStrings(each, fill)])) as T;
}
