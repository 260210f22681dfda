import { createHash } from 'node:crypto';
import type { SqlExecutor } from '@sheaf/core';
import type { MigrationStep, TableFingerprint, TableSelection } from '../model.js';

/** Where a journaled migration stands: `running` and `aborting` are unfinished. */
export type JournalState = 'running' | 'aborting' | 'done' | 'aborted';

/** One migration as `sheaf_migrations` records it (MySQL/MariaDB, where DDL commits as it runs). */
export interface MigrationRecord {
  readonly id: number;
  readonly state: JournalState;
  /** The selection the plan came from, when the caller gave one (the CLI does). */
  readonly selection: TableSelection | null;
  /** SHA-256 of the steps' statements and descriptions: the same plan has the same checksum. */
  readonly checksum: string;
  readonly steps: readonly MigrationStep[];
  /** The touched tables' fingerprints taken before the first step: what the end is verified against. */
  readonly before: readonly TableFingerprint[];
  /** Steps 1…stepsDone have committed (while aborting: have not yet been undone). */
  readonly stepsDone: number;
  /** The step whose statement (or, while aborting, inverse) was sent last and not yet recorded. */
  readonly runningStep: number | null;
  /** The last error, or how verification ended. */
  readonly note: string | null;
  /** UTC, ISO 8601. */
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly finishedAt: string | null;
}

// Created by the first journaled --apply rather than by sheaf install: only migrations need it, and
// it records changes to the application's tables, not sheaf's own state (docs/migrating-existing-tables.md).
const createSql = `
  create table if not exists sheaf_migrations (
    id integer not null auto_increment primary key,
    state varchar(16) not null,
    selection text null,
    plan_checksum char(64) not null,
    steps longtext not null,
    fingerprints longtext not null,
    steps_total integer not null,
    steps_done integer not null default 0,
    running_step integer null,
    note text null,
    started_at datetime(3) not null,
    updated_at datetime(3) not null,
    finished_at datetime(3) null
  ) engine = innodb`;

const iso = (column: string) => `concat(replace(cast(${column} as char), ' ', 'T'), 'Z')`;

const selectSql = `
  select id, state, selection, plan_checksum, steps, fingerprints, steps_done, running_step, note,
    ${iso('started_at')} as started_at, ${iso('updated_at')} as updated_at,
    case when finished_at is null then null else ${iso('finished_at')} end as finished_at
  from sheaf_migrations`;

interface RecordRow {
  id: number | string;
  state: JournalState;
  selection: string | null;
  plan_checksum: string;
  steps: string;
  fingerprints: string;
  steps_done: number | string;
  running_step: number | string | null;
  note: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Creates the journal table if this is the database's first journaled migration. */
export async function ensureJournal(session: SqlExecutor): Promise<void> {
  await session.query(createSql);
}

/** The latest journaled migration of the current database, or null (none, or no journal table yet). */
export async function latestRecord(session: SqlExecutor): Promise<MigrationRecord | null> {
  const [table] = await session.query<{ n: number | string }>(
    `select count(*) as n from information_schema.tables
     where table_schema = database() and table_name = 'sheaf_migrations'`,
  );
  if (Number(table?.n) === 0) return null;
  const [row] = await session.query<RecordRow>(`${selectSql} order by id desc limit 1`);
  return row ? toRecord(row) : null;
}

/** Whether a record still needs `resumeMigration` or `abortMigration`. */
export const isUnfinished = (record: MigrationRecord): boolean =>
  record.state === 'running' || record.state === 'aborting';

/** The checksum a plan is recorded and recognised by. */
export function planChecksum(steps: readonly MigrationStep[]): string {
  const text = JSON.stringify(steps.map((step) => [step.sql, step.describe]));
  return createHash('sha256').update(text).digest('hex');
}

/** Records the whole plan and the fingerprints before its first step, in one row; returns the record. */
export async function insertRecord(
  session: SqlExecutor,
  plan: { steps: readonly MigrationStep[]; before: readonly TableFingerprint[]; selection: TableSelection | null },
): Promise<MigrationRecord> {
  const fingerprints = plan.before.map((f) => ({ table: f.table, rows: f.rows.toString(), checksum: f.checksum }));
  await session.query(
    `insert into sheaf_migrations (state, selection, plan_checksum, steps, fingerprints, steps_total, started_at, updated_at)
     values ('running', ?, ?, ?, ?, ?, utc_timestamp(3), utc_timestamp(3))`,
    [
      plan.selection === null ? null : JSON.stringify(plan.selection),
      planChecksum(plan.steps),
      JSON.stringify(plan.steps),
      JSON.stringify(fingerprints),
      plan.steps.length,
    ],
  );
  // The row this session inserted, whatever other sessions did meanwhile.
  const [row] = await session.query<RecordRow>(`${selectSql} where id = last_insert_id()`);
  return toRecord(row as RecordRow);
}

/** The fields a run moves on; `finished` stamps finished_at. */
export interface RecordUpdate {
  readonly state?: JournalState;
  readonly stepsDone?: number;
  readonly runningStep?: number | null;
  readonly note?: string | null;
  readonly finished?: boolean;
}

/** Writes `fields` to the record (autocommit: each update is durable once it returns). */
export async function updateRecord(session: SqlExecutor, id: number, fields: RecordUpdate): Promise<void> {
  const columns: [string, unknown][] = [
    ['state', fields.state],
    ['steps_done', fields.stepsDone],
    ['running_step', fields.runningStep],
    ['note', fields.note],
  ];
  const set = columns.filter(([, value]) => value !== undefined);
  const assignments = [...set.map(([name]) => `${name} = ?`), 'updated_at = utc_timestamp(3)'];
  if (fields.finished) assignments.push('finished_at = utc_timestamp(3)');
  await session.query(`update sheaf_migrations set ${assignments.join(', ')} where id = ?`, [
    ...set.map(([, value]) => value),
    id,
  ]);
}

function toRecord(row: RecordRow): MigrationRecord {
  const fingerprints = JSON.parse(row.fingerprints) as {
    table: TableFingerprint['table'];
    rows: string;
    checksum: string;
  }[];
  return {
    id: Number(row.id),
    state: row.state,
    selection: row.selection === null ? null : (JSON.parse(row.selection) as TableSelection),
    checksum: row.plan_checksum,
    steps: JSON.parse(row.steps) as MigrationStep[],
    before: fingerprints.map((f) => ({ table: f.table, rows: BigInt(f.rows), checksum: f.checksum })),
    stepsDone: Number(row.steps_done),
    runningStep: row.running_step === null ? null : Number(row.running_step),
    note: row.note,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}
