import type { DialectName, SqlExecutor } from '@sheaf/core';
import { stateSql } from './state-sql.js';

/** The statements the generator tests run themselves, per dialect (the generators carry their own). */
const statements: Record<DialectName, Record<string, string>> = {
  postgres: {
    createSegment: 'select sheaf.create_segment($1, $2, $3::bigint)',
    maxId: 'select max_id::text as max_id from sheaf.segments where biz_tag = $1',
    createTicket: 'select sheaf.create_ticket($1, $2, $3)',
    clearWorkers: 'delete from sheaf.workers',
    workerRow: 'select holder, last_timestamp_ms::text as last_timestamp_ms from sheaf.workers where worker_id = $1',
    lockWorker: 'select 1 from sheaf.workers where worker_id = $1 for update',
    lockSegment: 'select 1 from sheaf.segments where biz_tag = $1 for update',
    begin: 'begin',
  },
  mysql: {
    createSegment: 'call {state}.sheaf_create_segment(?, ?, ?, null)',
    maxId: 'select max_id from {state}.sheaf_segments where biz_tag = ?',
    createTicket: 'call {state}.sheaf_create_ticket(?, ?, ?)',
    // Not delete: InnoDB keeps deleted rows delete-marked until purge, and concurrent inserts of one
    // such key take shared locks on it and deadlock (sheaf never deletes a worker row; tests do).
    clearWorkers: 'truncate table {state}.sheaf_workers',
    workerRow: 'select holder, last_timestamp_ms from {state}.sheaf_workers where worker_id = ?',
    lockWorker: 'select 1 from {state}.sheaf_workers where worker_id = ? for update',
    lockSegment: 'select 1 from {state}.sheaf_segments where biz_tag = ? for update',
    begin: 'start transaction',
  },
};

const sql = (executor: SqlExecutor, name: string) => stateSql(executor, statements[executor.dialect.name][name]!);

/** Creates a segment row (biz_tag, step, max_id) on any dialect. */
export async function createSegment(executor: SqlExecutor, bizTag: string, step: number, maxId = 0): Promise<void> {
  await executor.query(await sql(executor, 'createSegment'), [bizTag, step, String(maxId)]);
}

export async function segmentMaxId(executor: SqlExecutor, bizTag: string): Promise<number> {
  const [row] = await executor.query<{ max_id: unknown }>(await sql(executor, 'maxId'), [bizTag]);
  return Number(row!.max_id);
}

/** Creates a ticket on this server: `step` servers, this one at `offset`. */
export async function createTicket(executor: SqlExecutor, name: string, step: number, offset: number): Promise<void> {
  await executor.query(await sql(executor, 'createTicket'), [name, step, offset]);
}

export async function clearWorkers(executor: SqlExecutor): Promise<void> {
  await executor.query(await sql(executor, 'clearWorkers'));
}

export async function workerRow(executor: SqlExecutor, workerId: number) {
  const [row] = await executor.query<{ holder: string | null; last_timestamp_ms: unknown }>(
    await sql(executor, 'workerRow'),
    [workerId],
  );
  return { holder: row!.holder, lastTimestampMs: Number(row!.last_timestamp_ms) };
}

/** Opens a transaction on `executor` (one connection) that holds the row lock of `workerId`. */
export async function lockWorker(executor: SqlExecutor, workerId: number): Promise<void> {
  await executor.query(await sql(executor, 'begin'));
  await executor.query(await sql(executor, 'lockWorker'), [workerId]);
}

/** Opens a transaction on `executor` (one connection) that holds the row lock of segment `bizTag`. */
export async function lockSegment(executor: SqlExecutor, bizTag: string): Promise<void> {
  await executor.query(await sql(executor, 'begin'));
  await executor.query(await sql(executor, 'lockSegment'), [bizTag]);
}
