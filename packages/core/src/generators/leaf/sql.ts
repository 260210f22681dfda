import type { SqlExecutor } from '../../executor.js';
import type { DialectSql } from '../shared/dialect-sql.js';
import { int8 } from '../shared/id-kind.js';
import type { SqlName } from './table-name.js';

/** A Leaf row as read: max_id, step and, in a table with one, the optimistic-lock version. */
export interface LeafRow {
  readonly max: bigint;
  readonly step: number;
  readonly version: string | undefined;
}

/**
 * The statements of a Leaf `leaf_alloc` table, per dialect. `bump` is Leaf's allocation, `update …
 * set max_id = max_id + step where biz_tag = ?` and the row read back under the same row lock;
 * `bumpVersion` is the optimistic variant, which moves the row only if it still has the version
 * and max_id read. Both leave the row alone for a step below 2 (see leaf-alloc.ts) or one that
 * would pass the largest bigint.
 */
export interface LeafSql {
  /** The table's column names; none when it does not exist. */
  columns(executor: SqlExecutor, table: SqlName): Promise<string[]>;
  read(
    executor: SqlExecutor,
    table: SqlName,
    version: SqlName | undefined,
    bizTag: string,
  ): Promise<LeafRow | undefined>;
  /** The row after moving it by `step` (the row's own when undefined); undefined when no row moved. */
  bump(executor: SqlExecutor, table: SqlName, bizTag: string, step: number | undefined): Promise<LeafRow | undefined>;
  /** Whether the row moved from `row` by `step`. */
  bumpVersion(
    executor: SqlExecutor,
    table: SqlName,
    version: SqlName,
    bizTag: string,
    row: LeafRow,
    step: number,
  ): Promise<boolean>;
}

const maxBigint = '9223372036854775807';

const rowOf = (row: { max_id: unknown; step: unknown; version?: unknown } | undefined): LeafRow | undefined =>
  row && {
    max: int8(row.max_id, 'max_id'),
    step: Number(row.step),
    version: row.version === undefined || row.version === null ? undefined : String(row.version),
  };

type Raw = { max_id: unknown; step: unknown; version?: unknown };

export const leafSql: DialectSql<LeafSql> = {
  postgres: {
    async columns(executor, table) {
      const rows = await executor.query<{ name: string }>(
        'select a.attname::text as name from pg_catalog.pg_attribute a ' +
          'where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped',
        [table.sql],
      );
      return rows.map((row) => row.name);
    },
    async read(executor, table, version, bizTag) {
      const [row] = await executor.query<Raw>(
        `select max_id::text as max_id, step${version ? `, ${version.sql}::text as version` : ''} ` +
          `from ${table.sql} where biz_tag = $1`,
        [bizTag],
      );
      return rowOf(row);
    },
    // One statement: the UPDATE's row lock covers what RETURNING reads, as Leaf's transaction does.
    async bump(executor, table, bizTag, step) {
      const [row] = await executor.query<Raw>(
        `update ${table.sql} set max_id = max_id + coalesce($2::integer, step) ` +
          `where biz_tag = $1 and coalesce($2::integer, step) >= 2 ` +
          `and max_id <= ${maxBigint} - coalesce($2::integer, step) ` +
          'returning max_id::text as max_id, coalesce($2::integer, step) as step',
        [bizTag, step ?? null],
      );
      return rowOf(row);
    },
    async bumpVersion(executor, table, version, bizTag, row, step) {
      const moved = await executor.query(
        `update ${table.sql} set max_id = max_id + $2::bigint, ${version.sql} = ${version.sql} + 1 ` +
          `where biz_tag = $1 and ${version.sql} = $3 and max_id = $4::bigint returning 1`,
        [bizTag, String(step), row.version, String(row.max)],
      );
      return moved.length === 1;
    },
  },
  mysql: {
    async columns(executor, table) {
      const rows = await executor.query<{ name: string }>(
        'select column_name as name from information_schema.columns ' +
          'where table_schema = coalesce(?, database()) and table_name = ?',
        [table.schema ?? null, table.name],
      );
      return rows.map((row) => row.name);
    },
    async read(executor, table, version, bizTag) {
      const [row] = await executor.query<Raw>(
        `select max_id, step${version ? `, ${version.sql} as version` : ''} from ${table.sql} where biz_tag = ?`,
        [bizTag],
      );
      return rowOf(row);
    },
    // Leaf's own transaction: no RETURNING for UPDATE here. ROW_COUNT() tells whether the UPDATE
    // moved the row, so a row inserted meanwhile is never read as one this call moved.
    bump: (executor, table, bizTag, step) =>
      inTransaction(executor, async (session) => {
        await session.query(
          `update ${table.sql} set max_id = max_id + coalesce(?, step) ` +
            `where biz_tag = ? and coalesce(?, step) >= 2 and max_id <= ${maxBigint} - coalesce(?, step)`,
          [step ?? null, bizTag, step ?? null, step ?? null],
        );
        const [row] = await session.query<Raw & { moved: unknown }>(
          `select row_count() as moved, max_id, coalesce(?, step) as step from ${table.sql} where biz_tag = ?`,
          [step ?? null, bizTag],
        );
        return Number(row?.moved) === 1 ? rowOf(row) : undefined;
      }),
    bumpVersion: (executor, table, version, bizTag, row, step) =>
      executor.session(async (session) => {
        await session.query(
          // Cast: MySQL compares an integer with a string as doubles, which cannot tell apart ids above 2^53.
          `update ${table.sql} set max_id = max_id + ?, ${version.sql} = ${version.sql} + 1 ` +
            `where biz_tag = ? and ${version.sql} = cast(? as signed) and max_id = cast(? as signed)`,
          [step, bizTag, row.version, String(row.max)],
        );
        const [count] = await session.query<{ moved: unknown }>('select row_count() as moved');
        return Number(count?.moved) === 1;
      }),
  },
};

/** Runs `fn` in a transaction on one connection; rolls back when it throws or returns undefined. */
async function inTransaction<T>(
  executor: SqlExecutor,
  fn: (session: SqlExecutor) => Promise<T | undefined>,
): Promise<T | undefined> {
  return executor.session(async (session) => {
    await session.query('start transaction');
    let result: T | undefined;
    try {
      result = await fn(session);
    } catch (error) {
      await session.query('rollback').catch(() => undefined);
      throw error;
    }
    await session.query(result === undefined ? 'rollback' : 'commit');
    return result;
  });
}
