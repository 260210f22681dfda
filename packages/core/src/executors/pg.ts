import { postgresDialect } from '../dialects/postgres.js';
import type { Row, SqlExecutor } from '../executor.js';
import { rethrow } from '../sql-errors.js';

/** The part of a `pg` Client (or PoolClient) that sheaf calls. */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The part of a `pg` Pool that sheaf calls. */
export interface PgPoolLike extends PgClientLike {
  readonly totalCount: number;
  connect(): Promise<PgClientLike & { release(err?: Error | boolean): void }>;
}

/**
 * An executor over node-postgres: a `Pool` (each `session` checks out a client) or a single
 * connected `Client` (used as is).
 *
 * @example
 * import pg from 'pg';
 * const executor = pgExecutor(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 */
export function pgExecutor(db: PgPoolLike | PgClientLike): SqlExecutor {
  const onClient = (client: PgClientLike): SqlExecutor => ({
    dialect: postgresDialect,
    async query<R extends object = Row>(sql: string, params?: readonly unknown[]) {
      const result = await client.query(sql, params ? [...params] : undefined).catch((error) => rethrow(error, sql));
      return result.rows as R[];
    },
    session: (fn) => fn(onClient(client)),
  });
  if (!isPool(db)) return onClient(db);
  return {
    ...onClient(db),
    async session(fn) {
      const client = await db.connect();
      try {
        const result = await fn(onClient(client));
        client.release();
        return result;
      } catch (error) {
        // A failed session may have left a transaction or lock behind: close it rather than reuse it.
        client.release(error instanceof Error ? error : true);
        throw error;
      }
    },
  };
}

function isPool(db: PgPoolLike | PgClientLike): db is PgPoolLike {
  return typeof (db as PgPoolLike).totalCount === 'number' && typeof (db as PgPoolLike).connect === 'function';
}
