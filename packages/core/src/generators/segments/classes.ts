import { SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import { asKind, type IdKind, int8 } from '../shared/id-kind.js';
import type { Segment } from './alloc.js';

/** The SQL of a segment shared by several databases, per dialect (sql/*: segment_classes). */
const classSql: DialectSql<{ readonly alloc: string; readonly read: string }> = {
  postgres: {
    alloc:
      'select first_id::text as first_id, last_id::text as last_id ' +
      'from sheaf.alloc_segment_class($1, $2::integer, $3::integer, $4::integer)',
    read: 'select delta, remainder from sheaf.segment_class($1)',
  },
  // Procedures: the executor returns their result set as the rows of the call.
  mysql: { alloc: 'call sheaf_alloc_segment_class(?, ?, ?, ?)', read: 'call sheaf_segment_class(?)' },
};

/**
 * A residue class: ids ≡ remainder (mod delta). Database k of n holds class (n, k).
 *
 * @example
 * const third: ResidueClass = { delta: 3, remainder: 2 };
 */
export interface ResidueClass {
  readonly delta: number;
  readonly remainder: number;
}

/** Allocates the segments of one biz_tag's class in one database. */
export class ClassAllocator {
  private readonly sql: { readonly alloc: string; readonly read: string };

  constructor(
    private readonly executor: SqlExecutor,
    private readonly bizTag: string,
    private readonly kind: IdKind,
    readonly expected: ResidueClass,
  ) {
    this.sql = sqlFor(executor, classSql, 'SegmentGenerator');
  }

  /** The class this database records for the tag (UNKNOWN_SEGMENT when it has no row). */
  async read(): Promise<ResidueClass> {
    const [row] = await this.executor.query<{ delta: unknown; remainder: unknown }>(this.sql.read, [this.bizTag]);
    if (row === undefined) throw new Error(`segment_class returned no row for '${this.bizTag}'`);
    return { delta: Number(row.delta), remainder: Number(row.remainder) };
  }

  /**
   * The next `step` ids of the expected class; the database refuses another class (SH018). The
   * range is checked once more here: an id outside the class would be another database's.
   */
  async alloc(step: number | undefined): Promise<Segment> {
    const { delta, remainder } = this.expected;
    const rows = await this.executor.query<{ first_id: unknown; last_id: unknown }>(this.sql.alloc, [
      this.bizTag,
      step ?? null,
      delta,
      remainder,
    ]);
    const row = rows[0];
    if (row === undefined) throw new Error(`alloc_segment_class returned no row for '${this.bizTag}'`);
    const first = int8(row.first_id, 'first_id');
    const last = int8(row.last_id, 'last_id');
    const d = BigInt(delta);
    if (first % d !== BigInt(remainder) || (last - first) % d !== 0n || last < first) {
      throw new SheafError(
        'SEGMENT_CLASS_MISMATCH',
        `segment '${this.bizTag}': the database returned ${first}…${last}, not ids ≡ ${remainder} (mod ${delta})`,
        { details: { bizTag: this.bizTag, first: String(first), last: String(last), delta, remainder } },
      );
    }
    asKind(last, this.kind, `segment '${this.bizTag}'`);
    return { first, size: Number((last - first) / d + 1n), stride: delta };
  }
}
