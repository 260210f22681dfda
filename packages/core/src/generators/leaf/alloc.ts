import { SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';
import type { Segment } from '../segments/alloc.js';
import type { SegmentSource } from '../segments/source.js';
import { asKind, type IdKind } from '../shared/id-kind.js';
import type { LeafRow, LeafSql } from './sql.js';
import type { SqlName } from './table-name.js';

/** How a Leaf table is read: its name, its optimistic-lock column if it has one, its statements. */
export interface LeafTable {
  readonly executor: SqlExecutor;
  readonly sql: LeafSql;
  readonly table: SqlName;
  readonly version: SqlName;
  /** The version column was named by the caller: the table must have it. */
  readonly versionRequired: boolean;
  readonly maxRetries: number;
}

const maxBigint = 9223372036854775807n;

/**
 * Segments of one biz_tag from a Leaf `leaf_alloc` table, allocated the way Leaf servers do, so
 * both can draw from the table at once. Leaf's own servers hand out [old max_id, new max_id) and
 * some derivatives (tinyid, the variants with a version column) (old, new]: allocations never
 * overlap, but their ends touch. This source hands out only (old, new), both ends skipped, so it
 * collides with neither convention, whichever the other servers follow; the cost is one id per
 * segment, and a step of at least 2.
 */
export class LeafAllocator implements SegmentSource {
  private shape: Promise<SqlName | undefined> | undefined;

  constructor(
    private readonly leaf: LeafTable,
    private readonly bizTag: string,
    private readonly kind: IdKind,
  ) {}

  async alloc(step: number | undefined): Promise<Segment> {
    const version = await this.versionColumn();
    const wanted = step === undefined ? undefined : Math.max(2, step);
    const { max, taken } = version ? await this.optimistic(version, wanted) : await this.locked(wanted);
    const last = max - 1n;
    asKind(last, this.kind, `segment '${this.bizTag}' of ${this.leaf.table.sql}`);
    return { first: max - BigInt(taken) + 1n, size: taken - 1, stride: 1, step: taken };
  }

  /** Leaf's `update … max_id = max_id + step` under the row lock. */
  private async locked(step: number | undefined): Promise<{ max: bigint; taken: number }> {
    const { executor, sql, table } = this.leaf;
    const row = await sql.bump(executor, table, this.bizTag, step);
    if (row) return { max: row.max, taken: row.step };
    throw await this.refusal(step);
  }

  /**
   * The variant with a version column: read, then move the row only if neither its version nor its
   * max_id changed. max_id is in the condition too, so a server that moves the row without the
   * version (plain Leaf beside the variant) cannot make a stale read pass. Every lost race means
   * another server got its segment; after maxRetries the allocation counts as failed, and the
   * generator retries it with backoff.
   */
  private async optimistic(version: SqlName, step: number | undefined): Promise<{ max: bigint; taken: number }> {
    const { executor, sql, table } = this.leaf;
    for (let attempt = 0; attempt < this.leaf.maxRetries; attempt++) {
      const row = await sql.read(executor, table, version, this.bizTag);
      const taken = step ?? row?.step ?? 0;
      if (row === undefined || taken < 2 || row.max > maxBigint - BigInt(taken)) throw await this.refusal(step, row);
      if (row.version === undefined) throw this.nullVersion();
      if (await sql.bumpVersion(executor, table, version, this.bizTag, row, taken)) {
        return { max: row.max + BigInt(taken), taken };
      }
    }
    throw new Error(
      `segment '${this.bizTag}' of ${table.sql}: ${this.leaf.maxRetries} optimistic updates in a row lost to other servers`,
    );
  }

  /** Why no row moved: no row, a step below 2, or max_id too close to the largest bigint. */
  private async refusal(step: number | undefined, known?: LeafRow): Promise<SheafError> {
    const { executor, sql, table } = this.leaf;
    const row = known ?? (await sql.read(executor, table, undefined, this.bizTag));
    const where = table.sql;
    if (row === undefined) {
      return new SheafError('UNKNOWN_SEGMENT', `unknown segment '${this.bizTag}': no row in ${where}`, {
        details: { bizTag: this.bizTag, table: table.sql },
      });
    }
    const taken = step ?? row.step;
    if (taken < 2) {
      return new SheafError(
        'INVALID_ARGUMENT',
        `segment '${this.bizTag}' of ${where} has step ${row.step}: sheaf takes Leaf segments of at least 2 ids`,
        { details: { bizTag: this.bizTag, table: table.sql, step: row.step, min: 2 } },
      );
    }
    return new SheafError(
      'SEGMENT_EXHAUSTED',
      `segment '${this.bizTag}' of ${where} is exhausted: max_id ${row.max} + step ${taken} exceeds ${maxBigint}`,
      { details: { bizTag: this.bizTag, table: table.sql, maxId: String(row.max), step: taken } },
    );
  }

  private nullVersion(): SheafError {
    const { table, version } = this.leaf;
    return new SheafError(
      'INVALID_ARGUMENT',
      `segment '${this.bizTag}' of ${table.sql} has a null ${version.sql}: an optimistic update cannot match it`,
      { details: { bizTag: this.bizTag, table: table.sql, column: version.name } },
    );
  }

  /** The version column when the table has it; checks the table once (again after a failure). */
  private versionColumn(): Promise<SqlName | undefined> {
    this.shape ??= this.inspect().catch((error: unknown) => {
      this.shape = undefined;
      throw error;
    });
    return this.shape;
  }

  private async inspect(): Promise<SqlName | undefined> {
    const { executor, sql, table, version, versionRequired } = this.leaf;
    const columns = new Set((await sql.columns(executor, table)).map((name) => name.toLowerCase()));
    if (columns.size === 0) {
      throw new SheafError('UNKNOWN_TABLE', `table ${table.sql} does not exist, or this user cannot see it`, {
        details: { table: table.sql },
      });
    }
    const missing = ['biz_tag', 'max_id', 'step'].filter((column) => !columns.has(column));
    if (versionRequired && !columns.has(version.name.toLowerCase())) missing.push(version.name);
    if (missing.length > 0) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `table ${table.sql} has no column ${missing.join(', ')}: not a Leaf leaf_alloc table`,
        { details: { table: table.sql, missing } },
      );
    }
    return columns.has(version.name.toLowerCase()) ? version : undefined;
  }
}
