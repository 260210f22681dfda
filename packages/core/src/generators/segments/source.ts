import type { Segment } from './alloc.js';

/**
 * What {@link SegmentGenerator.databases} reports per database, in the order given.
 *
 * @example
 * const down = orders.databases().filter((database: SegmentDatabaseStatus) => !database.up);
 */
export interface SegmentDatabaseStatus {
  readonly index: number;
  /** The residue class this database hands out: ids ≡ remainder (mod delta). */
  readonly remainder: number;
  readonly delta: number;
  readonly up: boolean;
  /** Failed allocations (or refusals) in a row. */
  readonly failures: number;
  /** Ms until a database that failed is tried again (0 when it is due). */
  readonly retryInMs: number;
  /** Segments this generator took from it. */
  readonly segments: number;
  readonly lastError: string | undefined;
}

/** Where a SegmentGenerator takes its segments from: sheaf's row in one or several databases, or a Leaf table. */
export interface SegmentSource {
  /** The next segment; `step` undefined takes the row's step. */
  alloc(step: number | undefined): Promise<Segment>;
  /** What start() checks before the first segment; rejects with a coded error. */
  check?(timeoutMs: number): Promise<void>;
  /** Bound of one alloc() in all, when the source bounds each query itself; else the query timeout. */
  readonly fetchTimeoutMs?: number;
  /** Health per database, for a source over several. */
  databases?(): SegmentDatabaseStatus[];
}
