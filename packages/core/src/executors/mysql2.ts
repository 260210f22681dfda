import { mysqlDialect } from '../dialects/mysql.js';
import { SheafError } from '../errors.js';
import type { Row, SqlExecutor } from '../executor.js';
import { rethrow } from '../sql-errors.js';
import { withPooledSessions } from './pooled-sessions.js';

interface QueryOptions {
  sql: string;
  values?: unknown[];
  supportBigNumbers: boolean;
  bigNumberStrings: boolean;
  rowsAsArray: boolean;
}

/** The part of a `mysql2/promise` Connection (or PoolConnection) that sheaf calls. */
export interface Mysql2ConnectionLike {
  query(options: QueryOptions): Promise<[unknown, unknown]>;
}

/** The part of a `mysql2/promise` Pool that sheaf calls. */
export interface Mysql2PoolLike extends Mysql2ConnectionLike {
  getConnection(): Promise<Mysql2ConnectionLike & { release(): void; destroy(): void }>;
}

/**
 * An executor over `mysql2/promise` (MySQL 8, MariaDB): a `Pool` (each `session` takes a
 * connection) or a single `Connection`. BIGINT columns are read as strings, whatever the
 * pool's own settings, so no id loses precision. `query('call p(?)')` returns the procedure's first
 * result set, as a `select` would return its rows (the others are dropped).
 *
 * @example
 * import mysql from 'mysql2/promise';
 * const executor = mysql2Executor(mysql.createPool('mysql://root@127.0.0.1:3306/app'));
 */
export function mysql2Executor(db: Mysql2PoolLike | Mysql2ConnectionLike): SqlExecutor {
  const onConnection = (connection: Mysql2ConnectionLike): SqlExecutor => ({
    dialect: mysqlDialect,
    async query<R extends object = Row>(sql: string, params?: readonly unknown[]) {
      // Rows as objects, whatever the pool says: a row is then never mistaken for a result set.
      const options: QueryOptions = { sql, supportBigNumbers: true, bigNumberStrings: true, rowsAsArray: false };
      if (params) options.values = [...params];
      const answer = await connection.query(options).catch(rethrow);
      if (fromMariadbDriver(answer)) {
        throw new SheafError(
          'INVALID_ARGUMENT',
          'mysql2Executor was given a connection of the `mariadb` driver (it answered with rows carrying `meta`, ' +
            "or an OK packet, not mysql2's [rows, fields]): use mariadbExecutor for it",
          { details: { driver: 'mariadb', expected: 'mysql2' } },
        );
      }
      return firstResultSet(answer[0]) as R[];
    },
    session: (fn) => fn(onConnection(connection)),
  });
  if (!isPool(db)) return onConnection(db);
  return withPooledSessions(onConnection(db), () => db.getConnection(), onConnection);
}

/**
 * The rows of the first result set. A `call` answers with every result set its procedure produced
 * and a status header (`[[rows], header]`), so a procedure that returns rows reads like a select;
 * statements without a result set answer with a header object alone, which reads as no rows.
 */
function firstResultSet(result: unknown): unknown[] {
  if (!Array.isArray(result)) return [];
  return Array.isArray(result[0]) ? result[0] : result;
}

/**
 * The `mariadb` driver has the same `query` and `getConnection` and type-checks as mysql2; only its
 * answers differ: a select's rows carry a `meta` property, a `call`'s result sets do, a write is an
 * OK packet instead of an array. Read as mysql2's, they would silently be no rows.
 */
function fromMariadbDriver(answer: unknown): boolean {
  if (!Array.isArray(answer)) return true;
  return 'meta' in answer || (Array.isArray(answer[0]) && 'meta' in answer[0]);
}

function isPool(db: Mysql2PoolLike | Mysql2ConnectionLike): db is Mysql2PoolLike {
  return typeof (db as Mysql2PoolLike).getConnection === 'function';
}
