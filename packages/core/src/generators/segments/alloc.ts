import type { SqlExecutor } from '../../executor.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import { asKind, type IdKind, int8 } from '../shared/id-kind.js';

/** The SQL of SegmentGenerator per dialect: one row `(first_id, last_id)` for `(biz_tag, step or null)`. */
const segmentSql: DialectSql<{ readonly alloc: string }> = {
  postgres: {
    alloc: 'select first_id::text as first_id, last_id::text as last_id from sheaf.alloc_segment($1, $2::integer)',
  },
  // A procedure: the executor returns its result set as the rows of the call.
  mysql: { alloc: 'call sheaf_alloc_segment(?, ?)' },
};

/**
 * Ids allocated in a database: first, first + stride, …, first + (size − 1) × stride. The stride is 1
 * for a segment of one database and the number of databases for one of several (each its own
 * residue class).
 */
export interface Segment {
  readonly first: bigint;
  readonly size: number;
  readonly stride: number;
  /** The step the allocation took, when it is not `size` (a Leaf table's segment skips its ends). */
  readonly step?: number;
}

/** Allocates segments of one biz_tag; UNSUPPORTED_DIALECT at construction when there is no SQL. */
export class SegmentAllocator {
  private readonly sql: string;

  constructor(
    private readonly executor: SqlExecutor,
    private readonly bizTag: string,
    private readonly kind: IdKind,
  ) {
    this.sql = sqlFor(executor, segmentSql, 'SegmentGenerator').alloc;
  }

  /** The next range; `step` undefined takes the row's step. Refuses ids a Number cannot hold. */
  async alloc(step: number | undefined): Promise<Segment> {
    const rows = await this.executor.query<{ first_id: unknown; last_id: unknown }>(this.sql, [
      this.bizTag,
      step ?? null,
    ]);
    const row = rows[0];
    if (row === undefined) throw new Error(`alloc_segment returned no row for '${this.bizTag}'`);
    const first = int8(row.first_id, 'first_id');
    const last = int8(row.last_id, 'last_id');
    asKind(last, this.kind, `segment '${this.bizTag}'`);
    return { first, size: Number(last - first + 1n), stride: 1 };
  }
}
