import { type Database, executorOf } from '../../executors/executor-of.js';
import type { SegmentSource } from '../segments/source.js';
import { sqlFor } from '../shared/dialect-sql.js';
import type { IdKind } from '../shared/id-kind.js';
import { intOption, optionsObject } from '../shared/options.js';
import { LeafAllocator, type LeafTable } from './alloc.js';
import { leafSql } from './sql.js';
import { sqlName } from './table-name.js';

/**
 * What {@link leafAllocSource} takes.
 *
 * @example
 * const options: LeafAllocOptions = { table: 'ids.leaf_alloc', versionColumn: 'version' };
 */
export interface LeafAllocOptions {
  /** The Leaf table, `name` or `schema.name` (MySQL: `database.name`); default `leaf_alloc`. */
  readonly table?: string;
  /**
   * The optimistic-lock column of the variant that has one; default `version`, used when the table
   * has it. Naming another makes it required.
   */
  readonly versionColumn?: string;
  /** Optimistic updates lost in a row before an allocation counts as failed (default 20). */
  readonly maxRetries?: number;
}

// Symbol.for, like SheafError's brand: a source made by another copy of the package is one too.
const brand = Symbol.for('sheaf.leafAllocSource');

/**
 * A Leaf `leaf_alloc` table to give a {@link SegmentGenerator} instead of sheaf's own segments
 * (make one with {@link leafAllocSource}).
 *
 * @example
 * const source: LeafAllocSource = leafAllocSource(pool);
 * console.log(source.table); // '"leaf_alloc"'
 */
export interface LeafAllocSource {
  /** The table as queried, quoted. */
  readonly table: string;
  readonly [brand]: (bizTag: string, kind: IdKind) => SegmentSource;
}

/**
 * An existing Meituan Leaf table (`biz_tag varchar(128) primary key, max_id bigint, step int, …`,
 * optionally with a `version` column) as the source of a {@link SegmentGenerator}: segments are
 * allocated as Leaf servers allocate them (`update … set max_id = max_id + step` under the row
 * lock, or the optimistic update of the version variant, retried), so Leaf servers and sheaf
 * generators can share the table during a rolling switch without handing out an id twice. Checks
 * the names at once (INVALID_ARGUMENT), the table at the first allocation (UNKNOWN_TABLE).
 *
 * @example
 * const orders = await new SegmentGenerator(leafAllocSource(pool), { bizTag: 'orders' }).start();
 */
export function leafAllocSource(db: Database, options?: LeafAllocOptions): LeafAllocSource {
  const executor = executorOf(db, 'leafAllocSource');
  const given = optionsObject('leafAllocSource', options);
  const table = sqlName(given.table ?? 'leaf_alloc', 'table', executor.dialect, true);
  const leaf: LeafTable = {
    executor,
    sql: sqlFor(executor, leafSql, 'leafAllocSource'),
    table,
    version: sqlName(given.versionColumn ?? 'version', 'versionColumn', executor.dialect, false),
    versionRequired: given.versionColumn !== undefined,
    maxRetries: intOption('maxRetries', given.maxRetries, 20, 1, 1000),
  };
  return Object.freeze({
    table: table.sql,
    [brand]: (bizTag: string, kind: IdKind) => new LeafAllocator(leaf, bizTag, kind),
  });
}

/** The source behind a {@link LeafAllocSource}, or undefined for anything else. */
export function leafSourceOf(value: unknown): LeafAllocSource[typeof brand] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const make = (value as Record<symbol, unknown>)[brand];
  return typeof make === 'function' ? (make as LeafAllocSource[typeof brand]) : undefined;
}
