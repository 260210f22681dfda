import { postgresDialect } from '../dialects/postgres.js';
import type { Row, SqlExecutor } from '../executor.js';
import { rethrow } from '../sql-errors.js';

/** The part of a PGlite instance that sheaf calls. */
export interface PGliteLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * An executor over embedded PGlite. PGlite is one connection, so a `session` holds it exclusively:
 * other queries wait until the session ends instead of landing inside its transaction.
 *
 * @example
 * import { PGlite } from '@electric-sql/pglite';
 * const executor = pgliteExecutor(await PGlite.create());
 */
export function pgliteExecutor(db: PGliteLike): SqlExecutor {
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
  const run = async <R extends object>(sql: string, params?: readonly unknown[]) => {
    const result = await db.query(sql, params ? [...params] : undefined).catch((error) => rethrow(error, sql));
    return result.rows as R[];
  };
  const inSession: SqlExecutor = {
    dialect: postgresDialect,
    query: run,
    session: (fn) => fn(inSession),
  };
  return {
    dialect: postgresDialect,
    query: <R extends object = Row>(sql: string, params?: readonly unknown[]) => exclusive(() => run<R>(sql, params)),
    session: (fn) => exclusive(() => fn(inSession)),
  };
}
