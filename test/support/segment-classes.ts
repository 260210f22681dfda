import type { DialectName, SqlExecutor } from '@sheaf/core';
import { stateSql } from './state-sql.js';

/** The statements of segments over several databases that tests run themselves, per dialect. */
const statements: Record<DialectName, Record<string, string>> = {
  postgres: {
    create: 'select sheaf.create_segment_class($1, $2, $3, $4, $5::bigint)',
    alloc: 'select first_id::text as first_id, last_id::text as last_id from sheaf.alloc_segment_class($1, $2, $3, $4)',
    allocPlain: 'select first_id::text as first_id, last_id::text as last_id from sheaf.alloc_segment($1, $2)',
    read: 'select delta, remainder from sheaf.segment_class($1)',
    maxId: 'select max_id::text as max_id from sheaf.segments where biz_tag = $1',
    setClass: 'update sheaf.segments set delta = $2, remainder = $3 where biz_tag = $1',
  },
  mysql: {
    create: 'call {state}.sheaf_create_segment_class(?, ?, ?, ?, ?, null)',
    alloc: 'call sheaf_alloc_segment_class(?, ?, ?, ?)',
    allocPlain: 'call sheaf_alloc_segment(?, ?)',
    read: 'call sheaf_segment_class(?)',
    maxId: 'select cast(max_id as char) as max_id from {state}.sheaf_segments where biz_tag = ?',
    setClass: 'update {state}.sheaf_segments set delta = ?, remainder = ? where biz_tag = ?',
  },
};

const sql = (executor: SqlExecutor, name: string) => stateSql(executor, statements[executor.dialect.name][name]!);

export interface Range {
  first: bigint;
  last: bigint;
}

/** Creates a row of residue class `remainder` mod `delta`. */
export async function createSegmentClass(
  executor: SqlExecutor,
  bizTag: string,
  delta: number,
  remainder: number,
  step = 1000,
  maxId: bigint | number = 0,
): Promise<void> {
  await executor.query(await sql(executor, 'create'), [bizTag, delta, remainder, step, String(maxId)]);
}

/** One `alloc_segment_class` call: the range (first_id, last_id). */
export async function allocClass(
  executor: SqlExecutor,
  bizTag: string | null,
  step: number | null,
  delta: number | null,
  remainder: number | null,
): Promise<Range> {
  const [row] = await executor.query<{ first_id: unknown; last_id: unknown }>(await sql(executor, 'alloc'), [
    bizTag,
    step,
    delta,
    remainder,
  ]);
  return { first: BigInt(String(row!.first_id)), last: BigInt(String(row!.last_id)) };
}

/** One plain `alloc_segment` call (a segment of one database). */
export async function allocPlain(executor: SqlExecutor, bizTag: string, step: number | null = null): Promise<Range> {
  const [row] = await executor.query<{ first_id: unknown; last_id: unknown }>(await sql(executor, 'allocPlain'), [
    bizTag,
    step,
  ]);
  return { first: BigInt(String(row!.first_id)), last: BigInt(String(row!.last_id)) };
}

export async function segmentClass(executor: SqlExecutor, bizTag: string) {
  const [row] = await executor.query<{ delta: unknown; remainder: unknown }>(await sql(executor, 'read'), [bizTag]);
  return { delta: Number(row!.delta), remainder: Number(row!.remainder) };
}

export async function classMaxId(executor: SqlExecutor, bizTag: string): Promise<bigint> {
  const [row] = await executor.query<{ max_id: unknown }>(await sql(executor, 'maxId'), [bizTag]);
  return BigInt(String(row!.max_id));
}

/** What an admin runs to make a segment of one database class `remainder` of `delta` (docs/generators.md). */
export async function setClass(executor: SqlExecutor, bizTag: string, delta: number, remainder: number) {
  const params = executor.dialect.name === 'postgres' ? [bizTag, delta, remainder] : [delta, remainder, bizTag];
  await executor.query(await sql(executor, 'setClass'), params);
}
