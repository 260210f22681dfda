import {
  checkExplicitId,
  type Dialect,
  defaultLayout,
  fromDatabaseError,
  type Layout,
  layoutByName,
  type PresetName,
  parseId,
  SheafError,
} from '@sheaf/core';
import type { Knex } from 'knex';
import { dialectOfClient } from './dialect.js';
import { exactBigints, rowsOf } from './executor.js';

/** Anything that hands out ids: `SegmentGenerator`, `SnowflakeGenerator`, `BatchedDbIds`, `TicketClient`. */
export interface IdSource {
  next(): bigint | number | Promise<bigint | number>;
}

/**
 * Options of {@link insertWithIds}.
 *
 * @example
 * const options: InsertWithIdsOptions = { column: 'order_id', ids: segments };
 */
export interface InsertWithIdsOptions {
  /** The id column (default `id`). */
  readonly column?: string;
  /**
   * Where missing ids come from (default: PostgreSQL's column default read back with `returning`;
   * on MySQL `call sheaf_next_ids(n)`, one call per insert).
   */
  readonly ids?: IdSource;
  /** The layout of the ids (default `sheaf`): explicit ids above its largest are refused. */
  readonly layout?: Layout | PresetName;
}

type Rows = Record<string, unknown> | readonly Record<string, unknown>[];

/** The two things an insert needs from knex, from an instance or from a query builder. */
export interface InsertTarget {
  readonly dialect: Dialect;
  insert(rows: Record<string, unknown>[], returning: string | undefined): PromiseLike<unknown>;
  raw(sql: string, bindings: unknown[]): Knex.Raw;
}

/**
 * Inserts rows and returns their ids as bigints, in row order, on every dialect. Rows that carry
 * an id keep it. PostgreSQL: the column default assigns the rest, read back with `returning`. MySQL:
 * the ids are taken first (`call sheaf_next_ids(n)` or `options.ids`), because a multi-row insert's
 * `insertId` is one row's id only. Run it on a transaction to insert atomically with other writes.
 * What sheaf's SQL raises (NOT_INSTALLED, SHARD_NOT_OWNED from the key's default or trigger, …)
 * rejects as a SheafError; other errors stay knex's.
 *
 * @example
 * const [orderId] = await insertWithIds(knex, 'orders', { total: 12 });
 * await insertWithIds(knex, 'order_items', [{ order_id: orderId, sku: 'tea' }, { order_id: orderId, sku: 'scone' }]);
 */
export function insertWithIds(
  knex: Knex,
  table: string,
  rows: Rows,
  options: InsertWithIdsOptions = {},
): Promise<bigint[]> {
  return insertInto(
    {
      dialect: dialectOfClient(knex.client),
      insert: (list, returning) =>
        returning ? knex(table).insert(list).returning(returning) : knex(table).insert(list),
      raw: (sql, bindings) => knex.raw(sql, bindings as Knex.RawBinding[]),
    },
    rows,
    options,
  );
}

export async function insertInto(target: InsertTarget, rows: Rows, options: InsertWithIdsOptions): Promise<bigint[]> {
  const column = options.column ?? 'id';
  const list = (Array.isArray(rows) ? rows : [rows]).map((row: Record<string, unknown>) => ({ ...row }));
  if (list.length === 0) return [];
  const missing = list.filter((row) => row[column] === undefined || row[column] === null);
  // Checked before the insert by sheaf's one rule for explicit ids (docs/errors.md, Explicit ids).
  const layout = typeof options.layout === 'string' ? layoutByName(options.layout) : (options.layout ?? defaultLayout);
  for (const row of list) if (!missing.includes(row)) checkExplicitId(row[column], layout);
  if (missing.length > 0 && (options.ids || !target.dialect.returning)) {
    const ids = options.ids
      ? await fromSource(options.ids, missing.length)
      : await fromDatabase(target, missing.length);
    missing.forEach((row, i) => {
      row[column] = ids[i];
    });
  }
  if (missing.length > 0 && target.dialect.returning && !options.ids) {
    const returned = rowsOf({ rows: await converted(target.insert(list, column)) }) as Record<string, unknown>[];
    return returned.map((row) => idOf(row[column], column));
  }
  await converted(target.insert(list, undefined));
  return list.map((row) => idOf(row[column], column));
}

async function fromSource(source: IdSource, count: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < count; i++) ids.push(BigInt(await source.next()));
  return ids;
}

async function fromDatabase(target: InsertTarget, count: number): Promise<bigint[]> {
  const result: unknown = await converted(target.raw('call sheaf_next_ids(?)', [count]).options(exactBigints));
  return (rowsOf(result) as Array<{ id: unknown }>).map((row) => idOf(row.id, 'id'));
}

/** What sheaf's SQL raised (`sheaf_next_ids`, a column default, a trigger) as a SheafError; other errors as they are. */
async function converted<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (error) {
    throw fromDatabaseError(error);
  }
}

/** An id read back as a bigint; a number above 2^53 − 1 was already rounded by the driver and is refused. */
function idOf(value: unknown, column: string): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new SheafError(
      'INVALID_ID',
      `${column} ${value} came back as a rounded number: give the mysql2 connection ` +
        '{ supportBigNumbers: true, bigNumberStrings: true } (docs/guides/knex.md)',
      { details: { column, value } },
    );
  }
  return parseId(value as bigint | string | number);
}
