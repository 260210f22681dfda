import { createHash } from 'node:crypto';
import { type MysqlState, mysqlStateOf, SheafError, type SqlExecutor } from '@sheaf/core';
import type { MigrationStep, TableFingerprint, TableSelection } from '../model.js';
import { ensureJournalKey, macMatches, readJournalKey, recordMac } from './journal-key.js';

const journalTable = 'sheaf_migrations';

/** Where the journal of the current database is, and the key its records are authenticated with. */
export interface Journal {
  readonly state: MysqlState;
  readonly key: Buffer | null;
}

/** Where a journaled migration stands: `running` and `aborting` are unfinished. */
export type JournalState = 'running' | 'aborting' | 'done' | 'aborted';

/**
 * One migration as `sheaf_<app>.sheaf_migrations` records it (MySQL/MariaDB, where DDL commits as it
 * runs). A record whose HMAC does not match (`trusted: false`, changed outside sheaf) carries no
 * selection, steps or fingerprints: nothing from it is shown as sheaf's or ever run.
 */
export interface MigrationRecord {
  readonly id: number;
  readonly state: JournalState;
  /** Whether its HMAC matches the journal's key: only a trusted record is resumed or aborted. */
  readonly trusted: boolean;
  /** The journal table it is in, `sheaf_shop.sheaf_migrations`. */
  readonly journal: string;
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

// Created by the first journaled --apply in sheaf's state database (sheaf_<app>), which a grant on
// app.* does not reach: an application account can neither plant a record nor change one. The
// journal of earlier versions, app.sheaf_migrations, is never read (docs/migrating-existing-tables.md).
const createSql = (state: MysqlState) => `
  create table if not exists ${state.in(journalTable)} (
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
    finished_at datetime(3) null,
    hmac char(64) character set ascii not null
  ) engine = innodb default charset = utf8mb4`;

const iso = (column: string) => `concat(replace(cast(${column} as char), ' ', 'T'), 'Z')`;

const selectSql = (state: MysqlState) => `
  select id, state, selection, plan_checksum, steps, fingerprints, steps_done, running_step, note,
    ${iso('started_at')} as started_at, ${iso('updated_at')} as updated_at,
    case when finished_at is null then null else ${iso('finished_at')} end as finished_at, hmac
  from ${state.in(journalTable)}`;

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
  hmac: string;
}

/**
 * Creates the journal and its key in the state database if this is its first journaled migration;
 * returns where they are. Throws NOT_INSTALLED when the state database does not exist.
 */
export async function ensureJournal(session: SqlExecutor): Promise<Journal & { key: Buffer }> {
  const state = await mysqlStateOf(session);
  const [found] = await session.query<{ n: number | string }>(
    'select count(*) as n from information_schema.schemata where schema_name = ?',
    [state.state],
  );
  if (Number(found?.n) === 0) {
    throw new SheafError(
      'NOT_INSTALLED',
      `sheaf keeps the migration journal of database ${state.app} in database ${state.state}, which does not exist: ` +
        'run `sheaf install` (an upgraded install creates it); nothing was changed',
      { details: { database: state.app, stateDatabase: state.state } },
    );
  }
  await session.query(createSql(state));
  return { state, key: await ensureJournalKey(session, state) };
}

/** The latest journaled migration of the current database, or null (none, or no journal yet). */
export async function latestRecord(session: SqlExecutor): Promise<MigrationRecord | null> {
  const state = await mysqlStateOf(session);
  const [table] = await session.query<{ n: number | string }>(
    'select count(*) as n from information_schema.tables where table_schema = ? and table_name = ?',
    [state.state, journalTable],
  );
  if (Number(table?.n) === 0) return null;
  const [row] = await session.query<RecordRow>(`${selectSql(state)} order by id desc limit 1`);
  return row ? toRecord(row, { state, key: await readJournalKey(session, state) }) : null;
}

/** Whether a record still needs `resumeMigration` or `abortMigration`. */
export const isUnfinished = (record: MigrationRecord): boolean =>
  record.state === 'running' || record.state === 'aborting';

/** The checksum a plan is recorded and recognised by. */
export function planChecksum(steps: readonly MigrationStep[]): string {
  const text = JSON.stringify(steps.map((step) => [step.sql, step.describe]));
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Records the whole plan and the fingerprints before its first step, in one row authenticated with
 * the journal's key; returns the record.
 */
export async function insertRecord(
  session: SqlExecutor,
  journal: Journal & { key: Buffer },
  plan: { steps: readonly MigrationStep[]; before: readonly TableFingerprint[]; selection: TableSelection | null },
): Promise<MigrationRecord> {
  const { state, key } = journal;
  const fingerprints = plan.before.map((f) => ({ table: f.table, rows: f.rows.toString(), checksum: f.checksum }));
  const signed = {
    selection: plan.selection === null ? null : JSON.stringify(plan.selection),
    planChecksum: planChecksum(plan.steps),
    steps: JSON.stringify(plan.steps),
    fingerprints: JSON.stringify(fingerprints),
  };
  // The HMAC covers the id, known once the row is in: one transaction, so no record is ever seen without it.
  await session.query('start transaction');
  try {
    await session.query(
      `insert into ${state.in(journalTable)} (state, selection, plan_checksum, steps, fingerprints, steps_total,
         started_at, updated_at, hmac)
       values ('running', ?, ?, ?, ?, ?, utc_timestamp(3), utc_timestamp(3), '')`,
      [signed.selection, signed.planChecksum, signed.steps, signed.fingerprints, plan.steps.length],
    );
    const [inserted] = await session.query<{ id: number | string }>('select last_insert_id() as id');
    const id = Number(inserted?.id);
    await session.query(`update ${state.in(journalTable)} set hmac = ? where id = ?`, [
      recordMac(key, { id, ...signed }),
      id,
    ]);
    await session.query('commit');
    const [row] = await session.query<RecordRow>(`${selectSql(state)} where id = ?`, [id]);
    return toRecord(row as RecordRow, journal);
  } catch (error) {
    await session.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** The fields a run moves on; `finished` stamps finished_at. */
export interface RecordUpdate {
  readonly state?: JournalState;
  readonly stepsDone?: number;
  readonly runningStep?: number | null;
  readonly note?: string | null;
  readonly finished?: boolean;
}

/**
 * Writes `fields` to the record (autocommit: each update is durable once it returns). They are not
 * signed: none of them is ever run, and only sheaf's owner can write the state database.
 */
export async function updateRecord(session: SqlExecutor, record: MigrationRecord, fields: RecordUpdate): Promise<void> {
  const columns: [string, unknown][] = [
    ['state', fields.state],
    ['steps_done', fields.stepsDone],
    ['running_step', fields.runningStep],
    ['note', fields.note],
  ];
  const set = columns.filter(([, value]) => value !== undefined);
  const assignments = [...set.map(([name]) => `${name} = ?`), 'updated_at = utc_timestamp(3)'];
  if (fields.finished) assignments.push('finished_at = utc_timestamp(3)');
  await session.query(`update ${record.journal} set ${assignments.join(', ')} where id = ?`, [
    ...set.map(([, value]) => value),
    record.id,
  ]);
}

function toRecord(row: RecordRow, journal: Journal): MigrationRecord {
  const id = Number(row.id);
  const signed = {
    id,
    selection: row.selection,
    planChecksum: row.plan_checksum,
    steps: row.steps,
    fingerprints: row.fingerprints,
  };
  const trusted = macMatches(journal.key, signed, row.hmac);
  const common = {
    id,
    state: row.state,
    trusted,
    journal: journal.state.in(journalTable),
    stepsDone: Number(row.steps_done),
    runningStep: row.running_step === null ? null : Number(row.running_step),
    note: row.note,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
  if (!trusted) return { ...common, selection: null, checksum: '', steps: [], before: [] };
  const fingerprints = JSON.parse(row.fingerprints) as {
    table: TableFingerprint['table'];
    rows: string;
    checksum: string;
  }[];
  return {
    ...common,
    selection: row.selection === null ? null : (JSON.parse(row.selection) as TableSelection),
    checksum: row.plan_checksum,
    steps: JSON.parse(row.steps) as MigrationStep[],
    before: fingerprints.map((f) => ({ table: f.table, rows: BigInt(f.rows), checksum: f.checksum })),
  };
}
