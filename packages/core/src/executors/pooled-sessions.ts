import type { SqlExecutor } from '../executor.js';

/** A connection taken from a MySQL driver's pool: given back, or destroyed. */
export interface PooledConnection {
  release(): void;
  destroy(): void;
}

/** Executors made by {@link withPooledSessions}. */
const pooled = new WeakSet<SqlExecutor>();

/**
 * Whether no other caller can use the connection of one of `executor`'s sessions while it lasts:
 * true for the MySQL drivers' pools; false for a single connection, where every session is that
 * connection and the driver interleaves the statements of concurrent callers on it.
 */
export function hasOwnSessions(executor: SqlExecutor): boolean {
  return pooled.has(executor);
}

/**
 * `pool`'s executor with sessions of their own: each `session` takes a connection, gives it back
 * when the session succeeds and destroys it when it fails.
 */
export function withPooledSessions<C extends PooledConnection>(
  pool: SqlExecutor,
  getConnection: () => Promise<C>,
  onConnection: (connection: C) => SqlExecutor,
): SqlExecutor {
  const executor: SqlExecutor = {
    ...pool,
    async session(fn) {
      const connection = await getConnection();
      try {
        const result = await fn(onConnection(connection));
        connection.release();
        return result;
      } catch (error) {
        // A failed session may hold a transaction or GET_LOCK: drop the connection, never reuse it.
        connection.destroy();
        throw error;
      }
    },
  };
  pooled.add(executor);
  return executor;
}
