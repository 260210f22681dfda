import { fromDatabaseError, type Row, type SqlExecutor } from '@sheaf/core';
import type { Knex } from 'knex';
import { dialectOfClient } from './dialect.js';

/**
 * MySQL BIGINT as exact strings on every query of ours, whatever the pool's settings (mysql2 reads
 * them as lossy numbers by default); node-postgres already returns int8 as strings.
 */
export const exactBigints = { supportBigNumbers: true, bigNumberStrings: true } as const;

// Inside a transaction (knex migrations run in one by default) the installer's own transaction
// becomes a savepoint, so it neither commits the migration early nor escapes its rollback.
const inTransaction: Record<string, string> = {
  begin: 'savepoint sheaf_install',
  commit: 'release savepoint sheaf_install',
  rollback: 'rollback to savepoint sheaf_install',
};

/**
 * An executor over a knex instance or transaction, for `install()`, the generators and any other
 * `@sheaf/core` API. A `session` pins one pooled connection (or is the transaction itself).
 *
 * @example
 * import { SegmentGenerator } from '@sheaf/core';
 * const orders = await new SegmentGenerator(knexExecutor(knex), { bizTag: 'orders' }).start();
 */
export function knexExecutor(knex: Knex): SqlExecutor {
  const dialect = dialectOfClient(knex.client);
  const onConnection = (connection: unknown, transaction: boolean): SqlExecutor => ({
    dialect,
    async query<R extends object = Row>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      const text = (transaction && inTransaction[sql.trim().toLowerCase()]) || sql;
      let raw = params?.length ? knex.raw(...withBindings(text, params, dialect.name)) : knex.raw(text);
      if (connection !== undefined) raw = raw.connection(connection);
      if (dialect.name === 'mysql') raw = raw.options(exactBigints);
      const result: unknown = await raw.then(undefined, (error: unknown) => {
        throw fromDatabaseError(error, text);
      });
      return rowsOf(result) as R[];
    },
    session: (fn) => fn(onConnection(connection, transaction)),
  });
  if (knex.isTransaction) return onConnection(undefined, true);
  return {
    ...onConnection(undefined, false),
    async session(fn) {
      const connection = await knex.client.acquireConnection();
      try {
        return await fn(onConnection(connection, false));
      } finally {
        await knex.client.releaseConnection(connection);
      }
    },
  };
}

/** PostgreSQL's `$n` placeholders as knex's `?` bindings; literal `?` escaped so knex leaves them. */
function withBindings(sql: string, params: readonly unknown[], dialect: string): [string, Knex.RawBinding[]] {
  if (dialect !== 'postgres') return [sql, [...params] as Knex.RawBinding[]];
  const bindings: Knex.RawBinding[] = [];
  const text = sql.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_, index: string) => {
    bindings.push(params[Number(index) - 1] as Knex.RawBinding);
    return '?';
  });
  return [text, bindings];
}

/** Rows of a raw result: node-postgres and PGlite `{ rows }`, mysql2 `[rows, fields]`, `call` `[[rows, header], …]`. */
export function rowsOf(result: unknown): unknown[] {
  if (Array.isArray(result)) {
    const first: unknown = result[0];
    if (!Array.isArray(first)) return [];
    return Array.isArray(first[0]) ? first[0] : first;
  }
  const rows = (result as { rows?: unknown } | undefined)?.rows;
  return Array.isArray(rows) ? rows : [];
}
