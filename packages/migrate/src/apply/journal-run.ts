import { type Database, executorOf, SheafError, type SqlExecutor } from '@sheaf/core';
import type { Migration, QualifiedName, TableFingerprint, TableSelection } from '../model.js';
import { oneLine } from '../one-line.js';
import type { ApplyResult } from './apply-result.js';
import { stopIfInterrupted } from './boundaries.js';
import {
  ensureJournal,
  insertRecord,
  isUnfinished,
  latestRecord,
  type MigrationRecord,
  planChecksum,
  updateRecord,
} from './journal-store.js';
import { requireTrusted } from './journal-trust.js';
import { withMigrationLock } from './migration-lock.js';
import { type RunOptions, type Settled, settle } from './run-options.js';
import { factsHold } from './schema-facts.js';
import { verify } from './verify.js';

/** What a journaled run needs besides the plan: the tables to verify and the selection to record. */
export interface JournalPlan {
  readonly tables: readonly QualifiedName[];
  readonly selection: TableSelection | null;
}

/**
 * Applies a migration step by step where every DDL statement commits on its own, journaled in
 * `sheaf_<app>.sheaf_migrations`: the whole plan and the fingerprints first, then each step as it
 * commits. An unfinished migration of the same plan is resumed; one of another plan is refused
 * (MIGRATION_UNFINISHED), since a plan made from a half-migrated schema no longer sees what the
 * finished steps dropped; one whose HMAC does not match is refused (JOURNAL_UNTRUSTED) and never run.
 */
export function runJournaled(
  session: SqlExecutor,
  migration: Migration,
  plan: JournalPlan,
  options: Settled,
): Promise<ApplyResult> {
  return withMigrationLock(session, options.lockWaitSeconds, async () => {
    const journal = await ensureJournal(session);
    const pending = await latestRecord(session);
    if (pending && isUnfinished(pending)) {
      requireTrusted(pending);
      if (pending.state === 'running' && pending.checksum === planChecksum(migration.steps)) {
        return forward(session, pending, options);
      }
      throw unfinished(pending, 'finish it first');
    }
    await refuseStale(session, migration);
    options.progress(`fingerprinting ${plan.tables.length} tables before the migration\n`);
    const before = await options.fingerprint(session, plan.tables);
    stopIfInterrupted(options.signal, 'before the first step: nothing was changed', { stepsDone: 0 });
    const record = await insertRecord(session, journal, { steps: migration.steps, before, selection: plan.selection });
    return forward(session, record, options);
  });
}

/**
 * Goes on with the unfinished migration journaled in this MySQL/MariaDB database, from the step
 * after the last one recorded, and verifies the end against the fingerprints taken before its
 * first step. Throws MIGRATION_UNFINISHED when the migration is being aborted, INVALID_ARGUMENT
 * when none is unfinished, JOURNAL_UNTRUSTED (running nothing) when its record fails its HMAC.
 *
 * @example
 * const { after } = await resumeMigration(pool, { progress: (line) => process.stderr.write(line) });
 */
export function resumeMigration(db: Database, options: RunOptions = {}): Promise<ApplyResult> {
  const executor = executorOf(db, 'resumeMigration');
  const settled = settle(executor, options);
  return executor.session((session) =>
    withMigrationLock(session, settled.lockWaitSeconds, async () => {
      const pending = await latestRecord(session);
      if (!pending || !isUnfinished(pending)) {
        throw new SheafError('INVALID_ARGUMENT', 'resumeMigration: no unfinished migration in this database', {
          details: { latest: pending?.id ?? null, state: pending?.state ?? null },
        });
      }
      requireTrusted(pending);
      if (pending.state === 'aborting') throw unfinished(pending, 'it is being aborted: abort it again to finish');
      return forward(session, pending, settled);
    }),
  );
}

async function forward(session: SqlExecutor, record: MigrationRecord, options: Settled): Promise<ApplyResult> {
  const total = record.steps.length;
  const resumedAt = record.stepsDone;
  if (resumedAt > 0) options.progress(`resuming migration #${record.id}: ${resumedAt} of ${total} steps done\n`);
  let done = await settleWindow(session, record, options);
  for (; done < total; done++) {
    const step = record.steps[done];
    if (!step) break;
    const point = { step: done + 1, of: total, migration: record.id };
    await options.boundary({ when: 'before-step', ...point });
    const where = done === 0 ? 'before the first step' : `after step ${done} of ${total}`;
    stopIfInterrupted(options.signal, `${where} of migration #${record.id}`, {
      migration: record.id,
      stepsDone: done,
      steps: total,
    });
    options.progress(`[${done + 1}/${total}] ${oneLine(step.describe)}\n`);
    await updateRecord(session, record, { runningStep: done + 1 });
    await session.query(step.sql).catch(async (error: unknown) => {
      // A statement that failed is rolled back; the journal keeps the error for --status.
      const note = `step ${done + 1} failed: ${error instanceof Error ? error.message : String(error)}`;
      await updateRecord(session, record, { note }).catch(() => undefined);
      throw error;
    });
    await options.boundary({ when: 'after-step', ...point });
    await updateRecord(session, record, { stepsDone: done + 1, runningStep: null, note: null });
  }
  stopIfInterrupted(options.signal, `after the last step of migration #${record.id}, before verifying`, {
    migration: record.id,
    stepsDone: total,
    steps: total,
  });
  const after = await verifyAgainst(session, record, options, 'migration');
  await updateRecord(session, record, { state: 'done', finished: true });
  return { before: record.before, after, migration: record.id, resumedAt };
}

/**
 * Refuses a plan whose effects the schema already shows (INVALID_ARGUMENT): one made before another
 * run applied it, say by two deploys at once, would drop foreign keys the other had put back and
 * stop at its triggers. A fresh plan's effects are all false at the start, but for re-added keys,
 * which exist until the plan drops them.
 */
async function refuseStale(session: SqlExecutor, migration: Migration): Promise<void> {
  for (const [index, step] of migration.steps.entries()) {
    const effect = step.effect ?? [];
    const expectedFalse = effect.some((fact) => !(fact.kind === 'foreign keys' && fact.present));
    if (!expectedFalse || !(await factsHold(session, effect))) continue;
    throw new SheafError(
      'INVALID_ARGUMENT',
      `the schema already shows what step ${index + 1} of this plan does (${oneLine(step.describe)}): ` +
        'the plan is older than the schema; plan again',
      { details: { step: index + 1 } },
    );
  }
}

/**
 * The first step not recorded may have committed just before the run stopped (DDL commits on its
 * own, the journal entry follows): its effect in the catalog decides. Returns the steps done.
 */
async function settleWindow(session: SqlExecutor, record: MigrationRecord, options: Settled): Promise<number> {
  const step = record.steps[record.stepsDone];
  if (!step) return record.stepsDone;
  if (!step.effect) {
    if (record.runningStep !== record.stepsDone + 1) return record.stepsDone;
    throw unfinished(record, `step ${record.stepsDone + 1} was sent and has no effect to check: check it by hand`);
  }
  if (!(await factsHold(session, step.effect))) return record.stepsDone;
  options.progress(`[${record.stepsDone + 1}/${record.steps.length}] had committed before the run stopped\n`);
  await updateRecord(session, record, { stepsDone: record.stepsDone + 1, runningStep: null });
  return record.stepsDone + 1;
}

/** Fingerprints the record's tables now and compares them with before its first step; records a difference. */
export async function verifyAgainst(
  session: SqlExecutor,
  record: MigrationRecord,
  options: Settled,
  what: 'migration' | 'abort',
): Promise<TableFingerprint[]> {
  const tables = record.before.map((fingerprint) => fingerprint.table);
  options.progress(`fingerprinting ${tables.length} tables after the ${what}\n`);
  const after = await options.fingerprint(session, tables);
  try {
    verify(record.before, after, 'the statements had committed as they ran', session.dialect.name);
  } catch (error) {
    const state = what === 'migration' ? 'done' : 'aborted';
    await updateRecord(session, record, { state, finished: true, note: (error as Error).message });
    throw error;
  }
  return after;
}

/** MIGRATION_UNFINISHED naming the pending migration and what it is at. */
export function unfinished(record: MigrationRecord, advice: string): SheafError {
  return new SheafError(
    'MIGRATION_UNFINISHED',
    `migration #${record.id} of this database is unfinished (${describeRecord(record)}): ${advice}`,
    {
      details: {
        migration: record.id,
        state: record.state,
        selection: record.selection,
        stepsDone: record.stepsDone,
        steps: record.steps.length,
      },
    },
  );
}

/** `--all, 12 of 38 steps done, started 2026-…Z`: a record in a few words. */
export function describeRecord(record: MigrationRecord): string {
  const selection = !record.selection
    ? 'a plan given in code'
    : 'all' in record.selection
      ? '--all'
      : record.selection.tables.map((table) => `--table ${table}`).join(' ');
  const verb = record.state === 'aborting' ? 'being aborted, ' : '';
  return `${selection}, ${verb}${record.stepsDone} of ${record.steps.length} steps done, started ${record.startedAt}`;
}
