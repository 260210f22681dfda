import { SheafError } from '@sheaf/core';
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

/** The part of knex's default export (the module, `import Knex from 'knex'`) that {@link extendKnex} uses. */
export interface KnexModuleLike {
  readonly QueryBuilder: { extend(name: string, fn: never): void };
}

/** knex's `extend(name, fn)`: the module's `QueryBuilder`, or the class of an instance's builders. */
interface ExtensionPoint {
  extend(name: string, fn: never): void;
}

const extended = new WeakSet<object>();

/**
 * Adds `insertWithIds(rows, options)` to every knex query builder. Takes the knex instance (or a
 * transaction) or the knex module. Opt-in (importing sheaf patches nothing) and idempotent: a second
 * call, with either, or from a second copy of this package, changes nothing. `INVALID_ARGUMENT` for
 * anything else.
 *
 * @example
 * const knex = Knex({ client: 'pg', connection: process.env.DATABASE_URL });
 * extendKnex(knex);
 * const ids = await knex('orders').insertWithIds([{ total: 1 }, { total: 2 }]);
 */
export function extendKnex(knex: Knex | KnexModuleLike): void {
  const point = extensionPoint(knex);
  if (extended.has(point)) return;
  try {
    point.extend('insertWithIds', insertWithIdsMethod as never);
  } catch (error) {
    // Another copy of @sheaf/knex got there first (or this one, through the other argument): its
    // method does the same.
    if (!String((error as Error)?.message).includes("existing method ('insertWithIds')")) throw error;
  }
  extended.add(point);
}

/**
 * The module has `QueryBuilder.extend`; an instance has none, but its builders' class has the static
 * `extend` the module's calls (knex 2 and 3; dialects subclass it and inherit it), which patches the
 * base class that every dialect's builders share.
 */
function extensionPoint(knex: unknown): ExtensionPoint {
  if (typeof knex === 'function') {
    const { QueryBuilder, queryBuilder } = knex as { QueryBuilder?: Partial<ExtensionPoint>; queryBuilder?: unknown };
    if (typeof QueryBuilder?.extend === 'function') return QueryBuilder as ExtensionPoint;
    if (typeof queryBuilder === 'function') {
      const builderClass = (queryBuilder.call(knex) as { constructor?: Partial<ExtensionPoint> } | null)?.constructor;
      if (typeof builderClass?.extend === 'function') return builderClass as ExtensionPoint;
    }
  }
  throw new SheafError(
    'INVALID_ARGUMENT',
    "extendKnex() takes the knex instance you query with (const knex = Knex({ client: 'pg', connection })) " +
      `or the knex module (import Knex from 'knex'), not ${describe(knex)}`,
    { details: { type: knex === null ? 'null' : typeof knex } },
  );
}

/** A short account of a wrong argument: an object's first keys tell a config object or a namespace. */
function describe(value: unknown): string {
  if (typeof value === 'function') return value.name ? `a function named ${value.name}` : 'a function';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value !== 'object' || value === null) return String(value);
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an empty object';
  return `an object with keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`;
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
