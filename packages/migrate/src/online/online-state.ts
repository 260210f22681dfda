import type { SqlExecutor } from '@sheaf/core';
import type { QualifiedName } from '../model.js';

/** Where a table is in the online migration; each phase is done when its row says so. */
export type OnlinePhase = 'prepared' | 'backfilled' | 'indexed' | 'swapped' | 'done';

/** One table's progress, as recorded in `sheaf.online_migrations`. */
export interface OnlineState {
  readonly table: QualifiedName;
  /** The table's oid: a row for a dropped and re-created table of the same name is stale. */
  readonly oid: number;
  readonly phase: OnlinePhase;
  /** Every key up to this one (the primary key's columns as text) is copied; null before the first batch. */
  readonly lastKey: readonly string[] | null;
  /** The largest key when the backfill began: later rows were written with the trigger in place. */
  readonly upperKey: readonly string[] | null;
  readonly rowsDone: bigint;
  readonly rowsTotal: bigint | null;
  /** Statements still to run after the swap (validations, analyze), so a crash after it can finish them. */
  readonly afterSwap: readonly string[];
}

// Created by the first --online run rather than by sheaf install: only migrations need it, and
// `sheaf uninstall` removes it with the schema.
const createSql = `
  create table if not exists sheaf.online_migrations (
    table_schema text not null,
    table_name text not null,
    table_oid oid not null,
    phase text not null,
    last_key text[],
    upper_key text[],
    rows_done bigint not null default 0,
    rows_total bigint,
    after_swap text[] not null default '{}',
    started_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (table_schema, table_name)
  )`;

/** Creates the state table if this is the database's first online migration. */
export async function ensureStateTable(executor: SqlExecutor): Promise<void> {
  await executor.query(createSql);
}

interface StateRow {
  table_schema: string;
  table_name: string;
  table_oid: number;
  phase: OnlinePhase;
  last_key: string[] | null;
  upper_key: string[] | null;
  rows_done: string;
  rows_total: string | null;
  after_swap: string[];
}

/** Every recorded table, finished or not. */
export async function readStates(executor: SqlExecutor): Promise<OnlineState[]> {
  const rows = await executor.query<StateRow>(
    `select table_schema, table_name, table_oid::int as table_oid, phase, last_key, upper_key,
       rows_done::text as rows_done, rows_total::text as rows_total, after_swap
     from sheaf.online_migrations order by started_at, table_schema, table_name`,
  );
  return rows.map((row) => ({
    table: { schema: row.table_schema, name: row.table_name },
    oid: row.table_oid,
    phase: row.phase,
    lastKey: row.last_key,
    upperKey: row.upper_key,
    rowsDone: BigInt(row.rows_done),
    rowsTotal: row.rows_total === null ? null : BigInt(row.rows_total),
    afterSwap: row.after_swap,
  }));
}

/** Starts a table's record (replacing a stale one), in the transaction that prepared it. */
export async function insertState(executor: SqlExecutor, table: QualifiedName, oid: number): Promise<void> {
  await executor.query(
    `insert into sheaf.online_migrations (table_schema, table_name, table_oid, phase) values ($1, $2, $3, 'prepared')
     on conflict (table_schema, table_name) do update set table_oid = excluded.table_oid, phase = 'prepared',
       last_key = null, upper_key = null, rows_done = 0, rows_total = null, after_swap = '{}',
       started_at = now(), updated_at = now()`,
    [table.schema, table.name, oid],
  );
}

/** Records changed fields of a table's row; `phase` moves it on. */
export async function updateState(
  executor: SqlExecutor,
  table: QualifiedName,
  fields: Partial<Pick<OnlineState, 'phase' | 'lastKey' | 'upperKey' | 'rowsDone' | 'rowsTotal' | 'afterSwap'>>,
): Promise<void> {
  const columns: Record<string, unknown> = {
    phase: fields.phase,
    last_key: fields.lastKey,
    upper_key: fields.upperKey,
    rows_done: fields.rowsDone?.toString(),
    rows_total: fields.rowsTotal?.toString(),
    after_swap: fields.afterSwap,
  };
  const set = Object.entries(columns).filter(([, value]) => value !== undefined);
  const assignments = set.map(([name], index) => `${name} = $${index + 3}`);
  await executor.query(
    `update sheaf.online_migrations set ${[...assignments, 'updated_at = now()'].join(', ')}
     where table_schema = $1 and table_name = $2`,
    [table.schema, table.name, ...set.map(([, value]) => value)],
  );
}
