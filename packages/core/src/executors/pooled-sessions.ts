import type { SqlExecutor } from '../executor.js';

/** A connection taken from a MySQL driver's pool: given back, or destroyed. */
export interface PooledConnection {
  release(): void;
  destroy(): void;
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
  return {
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
}
