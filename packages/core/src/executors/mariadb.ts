import { mysqlDialect } from '../dialects/mysql.js';
import { isSheafError, SheafError } from '../errors.js';
import type { Row, SqlExecutor } from '../executor.js';
import { fromDatabaseError } from '../sql-errors.js';
import { withPooledSessions } from './pooled-sessions.js';

interface MariadbQueryOptions {
  sql: string;
  bigIntAsNumber: boolean;
  decimalAsNumber: boolean;
  insertIdAsNumber: boolean;
  rowsAsArray: boolean;
}

/** The part of a `mariadb` Connection (or PoolConnection) that sheaf calls. */
export interface MariadbConnectionLike {
  query(options: MariadbQueryOptions, values?: unknown[]): Promise<unknown>;
}

/** The part of a `mariadb` Pool that sheaf calls. */
export interface MariadbPoolLike extends MariadbConnectionLike {
  getConnection(): Promise<MariadbConnectionLike & { release(): void; destroy(): void }>;
}

/**
 * An executor over the `mariadb` driver (MariaDB, MySQL 8): a `Pool` (each `session` takes a
 * connection) or a single `Connection`. The driver answers a `select` with its rows, not with
 * mysql2's `[rows, fields]`, so `mysql2Executor` cannot take it. BIGINT and DECIMAL values come back
 * as strings, as from `mysql2Executor`, whatever the pool's own settings; `query('call p(?)')`
 * returns the procedure's first result set; writes return no rows.
 *
 * @example
 * import mariadb from 'mariadb';
 * const executor = mariadbExecutor(mariadb.createPool('mariadb://root@127.0.0.1:3306/app'));
 */
export function mariadbExecutor(db: MariadbPoolLike | MariadbConnectionLike): SqlExecutor {
  const onConnection = (connection: MariadbConnectionLike): SqlExecutor => ({
    dialect: mysqlDialect,
    async query<R extends object = Row>(sql: string, params?: readonly unknown[]) {
      // Exact values, whatever the pool says: BIGINT as bigint, then a string like mysql2's.
      const options = {
        sql,
        bigIntAsNumber: false,
        decimalAsNumber: false,
        insertIdAsNumber: false,
        rowsAsArray: false,
      };
      const result = await connection.query(options, params ? [...params] : undefined).catch(translated);
      return rowsOf(result).map(withStrings) as R[];
    },
    session: (fn) => fn(onConnection(connection)),
  });
  if (!isPool(db)) return onConnection(db);
  return withPooledSessions(onConnection(db), () => db.getConnection(), onConnection);
}

/**
 * A `select` answers with its rows (an array carrying `meta`); a `call` with an array of its result
 * sets followed by an OK packet; a write with an OK packet alone, which reads as no rows.
 */
function rowsOf(result: unknown): unknown[] {
  if (!Array.isArray(result)) return [];
  if ('meta' in result) return result;
  return Array.isArray(result[0]) ? result[0] : [];
}

function withStrings(row: unknown): unknown {
  if (typeof row !== 'object' || row === null) return row;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) copy[key] = typeof value === 'bigint' ? value.toString() : value;
  return copy;
}

/**
 * Like `rethrow`, on the driver's bare message: its `message` wraps sheaf's text in
 * "(conn:12, no: 30001, SQLState: 45000) … sql: …", which a SheafError must not repeat.
 */
function translated(error: unknown): never {
  const { sqlMessage, errno, sqlState, code, sql } = (error ?? {}) as Record<string, unknown>;
  if (typeof sqlMessage !== 'string') throw fromDatabaseError(error);
  const mapped = fromDatabaseError({ errno, sqlState, code, message: sqlMessage, sql });
  if (!isSheafError(mapped)) throw error;
  throw new SheafError(mapped.code, mapped.message, {
    cause: error,
    ...(mapped.details && { details: mapped.details }),
  });
}

function isPool(db: MariadbPoolLike | MariadbConnectionLike): db is MariadbPoolLike {
  return typeof (db as MariadbPoolLike).getConnection === 'function';
}
