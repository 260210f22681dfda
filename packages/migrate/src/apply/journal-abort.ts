import { type Database, executorOf, type SqlExecutor } from '@sheaf/core';
import type { TableFingerprint } from '../model.js';
import { oneLine } from '../one-line.js';
import { stopIfInterrupted } from './boundaries.js';
import { describeRecord, unfinished, verifyAgainst } from './journal-run.js';
import { isUnfinished, latestRecord, type MigrationRecord, updateRecord } from './journal-store.js';
import { requireTrusted } from './journal-trust.js';
import { withMigrationLock } from './migration-lock.js';
import { type RunOptions, type Settled, settle } from './run-options.js';
import { factsHold } from './schema-facts.js';

/** What `abortMigration` did: null when no migration was unfinished. */
export interface AbortResult {
  readonly migration: number;
  /** How many steps were in effect when the abort began (all undone now). */
  readonly undone: number;
  readonly before: readonly TableFingerprint[];
  readonly after: readonly TableFingerprint[];
}

/**
 * Undoes the unfinished migration journaled in this MySQL/MariaDB database: the inverse of each
 * finished step, last first (drop sheaf's triggers, drop the re-added foreign keys and restate each
 * column's original type and attributes, add the dropped foreign keys back), then checks every
 * touched table against its fingerprint from before the first step and records the migration as
 * aborted. Interrupted, it can be run again. Resolves to null when nothing is unfinished. Runs
 * nothing from a record whose HMAC does not match (JOURNAL_UNTRUSTED).
 *
 * @example
 * const aborted = await abortMigration(pool, { progress: (line) => process.stderr.write(line) });
 */
export function abortMigration(db: Database, options: RunOptions = {}): Promise<AbortResult | null> {
  const executor = executorOf(db, 'abortMigration');
  const settled = settle(executor, options);
  return executor.session((session) =>
    withMigrationLock(session, settled.lockWaitSeconds, async () => {
      const pending = await latestRecord(session);
      if (!pending || !isUnfinished(pending)) return null;
      requireTrusted(pending);
      const missing = pending.steps.slice(0, pending.stepsDone + 1).findIndex((step) => !step.undo || !step.effect);
      if (missing >= 0) throw unfinished(pending, `step ${missing + 1} has no recorded inverse: undo it by hand`);
      return withStrictMode(session, () => backward(session, pending, settled));
    }),
  );
}

async function backward(session: SqlExecutor, record: MigrationRecord, options: Settled): Promise<AbortResult> {
  const total = record.steps.length;
  let done = record.stepsDone;
  if (record.state === 'running') {
    // The step after the last recorded one may have committed just before the run stopped.
    const next = record.steps[done];
    if (next?.effect && (await factsHold(session, next.effect))) done += 1;
    await updateRecord(session, record, { state: 'aborting', stepsDone: done, runningStep: null });
  }
  options.progress(`aborting migration #${record.id} (${describeRecord({ ...record, stepsDone: done })})\n`);
  const undone = done;
  for (; done > 0; done--) {
    const where = `while aborting migration #${record.id}, with ${done} of ${total} steps still in effect`;
    const point = { step: done, of: total, migration: record.id };
    await options.boundary({ when: 'before-undo', ...point });
    stopIfInterrupted(options.signal, where, { migration: record.id, stepsDone: done, steps: total });
    await undoStep(session, record, done, options);
    await options.boundary({ when: 'after-undo', ...point });
    await updateRecord(session, record, { stepsDone: done - 1, runningStep: null, note: null });
  }
  stopIfInterrupted(options.signal, `while aborting migration #${record.id}, before verifying`, {
    migration: record.id,
    stepsDone: 0,
    steps: total,
  });
  const after = await verifyAgainst(session, { ...record, stepsDone: 0 }, options, 'abort');
  await updateRecord(session, record, { state: 'aborted', finished: true });
  return { migration: record.id, undone, before: record.before, after };
}

/** Runs step `number`'s inverse unless the catalog shows it ran already (committed, then not recorded). */
async function undoStep(
  session: SqlExecutor,
  record: MigrationRecord,
  number: number,
  options: Settled,
): Promise<void> {
  const step = record.steps[number - 1];
  const total = record.steps.length;
  if (!step?.undo || !step.effect) return;
  if (!(await factsHold(session, step.effect))) {
    options.progress(`[${number}/${total}] had been undone before the run stopped\n`);
    return;
  }
  options.progress(`[${number}/${total}] undo: ${oneLine(step.describe)}\n`);
  await updateRecord(session, record, { runningStep: number });
  await session.query(step.undo).catch(async (error: unknown) => {
    const note = `undoing step ${number} failed: ${error instanceof Error ? error.message : String(error)}`;
    await updateRecord(session, record, { note }).catch(() => undefined);
    throw error;
  });
}

/**
 * Going back narrows columns: without a strict sql_mode MySQL would truncate a sheaf id written
 * since into the old type with a warning; strict, the ALTER fails and changes nothing.
 */
async function withStrictMode<T>(session: SqlExecutor, work: () => Promise<T>): Promise<T> {
  const [row] = await session.query<{ mode: string }>('select @@session.sql_mode as mode');
  const mode = row?.mode ?? '';
  await session.query('set session sql_mode = ?', [mode ? `${mode},STRICT_ALL_TABLES` : 'STRICT_ALL_TABLES']);
  try {
    return await work();
  } finally {
    await session.query('set session sql_mode = ?', [mode]).catch(() => undefined);
  }
}
