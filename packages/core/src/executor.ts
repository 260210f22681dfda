import type { Dialect } from './dialects/dialect.js';

/** A result row: column name to value, as the driver returned it. */
export type Row = Record<string, unknown>;

/**
 * The one interface sheaf talks to a database through. Build one with `pgExecutor`, `mariadbExecutor`,
 * `pgliteExecutor` or `mysql2Executor`; sheaf never imports a driver itself.
 *
 * 64-bit integers come back as strings (or bigints), never as lossy JavaScript numbers.
 *
 * @example
 * const rows = await executor.query<{ id: string }>('select sheaf.next_id() as id');
 */
export interface SqlExecutor {
  readonly dialect: Dialect;
  /** Runs one statement with positional parameters (`$1` on PostgreSQL, `?` on MySQL); returns its rows. */
  query<R extends object = Row>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /**
   * Runs `fn` on one connection, held for its whole duration: for transactions, session settings
   * and session-level locks. The connection goes back to its pool afterwards, even when `fn` throws.
   */
  session<T>(fn: (session: SqlExecutor) => Promise<T>): Promise<T>;
}
