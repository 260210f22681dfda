import type { Knex } from 'knex';
import { dialectOfClient, type KnexClientLike } from './dialect.js';
import { type InsertWithIdsOptions, insertInto } from './insert.js';

declare module 'knex' {
  namespace Knex {
    interface QueryBuilder {
      /** {@link insertWithIds} as a builder method; added by `extendKnex()`. */
      insertWithIds(
        rows: Record<string, unknown> | readonly Record<string, unknown>[],
        options?: InsertWithIdsOptions,
      ): Promise<bigint[]>;
    }
  }
}

/** The part of knex's default export that {@link extendKnex} uses. */
export interface KnexModuleLike {
  readonly QueryBuilder: { extend(name: string, fn: never): void };
}

const extended = new WeakSet<object>();

/**
 * Adds `insertWithIds(rows, options)` to every knex query builder. Opt-in (importing sheaf patches
 * nothing) and idempotent: a second call, or a second copy of this package, changes nothing.
 *
 * @example
 * import knex from 'knex';
 * extendKnex(knex);
 * const ids = await db('orders').insertWithIds([{ total: 1 }, { total: 2 }]);
 */
export function extendKnex(knexModule: KnexModuleLike): void {
  if (extended.has(knexModule.QueryBuilder)) return;
  try {
    knexModule.QueryBuilder.extend('insertWithIds', insertWithIdsMethod as never);
  } catch (error) {
    // Another copy of @sheaf/knex got there first: its method does the same.
    if (!String((error as Error)?.message).includes("existing method ('insertWithIds')")) throw error;
  }
  extended.add(knexModule.QueryBuilder);
}

interface BuilderInternals {
  readonly client: KnexClientLike & { raw(sql: string, bindings: unknown[]): Knex.Raw };
}

function insertWithIdsMethod(this: Knex.QueryBuilder, rows: Record<string, unknown>[], options?: InsertWithIdsOptions) {
  const client = (this as unknown as BuilderInternals).client;
  return insertInto(
    {
      dialect: dialectOfClient(client),
      insert: (list, returning) => (returning ? this.insert(list).returning(returning) : this.insert(list)),
      raw: (sql, bindings) => client.raw(sql, bindings),
    },
    rows,
    options ?? {},
  );
}
