import { SheafError } from '../../errors.js';
import { executorOf } from '../../executors/executor-of.js';
import { leafSourceOf } from '../leaf/source.js';
import { SegmentAllocator } from './alloc.js';
import { type PoolSettings, SegmentPool } from './pool.js';
import type { SegmentSource } from './source.js';

/** The most databases one tag may be spread over: each allocation's range is step × delta wide. */
export const maxSegmentDatabases = 1024;

/**
 * Where a SegmentGenerator's segments come from: one database (sheaf's `alloc_segment`, unchanged),
 * an array of databases (one residue class each), or a Leaf table (`leafAllocSource`).
 */
export function segmentSourceOf(db: unknown, settings: PoolSettings): SegmentSource {
  const leaf = leafSourceOf(db);
  if (leaf) return leaf(settings.bizTag, settings.kind);
  if (!Array.isArray(db))
    return new SegmentAllocator(executorOf(db, 'SegmentGenerator'), settings.bizTag, settings.kind);
  if (db.length === 0 || db.length > maxSegmentDatabases) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `SegmentGenerator needs 1 to ${maxSegmentDatabases} databases, not ${db.length}`,
      { details: { databases: db.length, max: maxSegmentDatabases } },
    );
  }
  const executors = db.map((each: unknown, index) => {
    if (leafSourceOf(each)) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `SegmentGenerator database ${index} is a Leaf table, which has no residue class: give a Leaf table on its own`,
        { details: { database: index } },
      );
    }
    return executorOf(each, `SegmentGenerator (database ${index})`);
  });
  return new SegmentPool(executors, settings);
}
