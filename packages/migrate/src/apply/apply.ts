import { type Database, executorOf, type SqlExecutor } from '@sheaf/core';
import type { Inspection, Migration, QualifiedName, TableSelection } from '../model.js';
import { byName, nameKey, qualify } from '../names.js';
import { oneLine } from '../one-line.js';
import type { ApplyResult } from './apply-result.js';
import { stopIfInterrupted } from './boundaries.js';
import { runJournaled } from './journal-run.js';
import { type RunOptions, type Settled, settle } from './run-options.js';
import { verify } from './verify.js';

/** How to apply: which tables to verify (`touchedTables(inspection)`), progress, and where to stop. */
export interface ApplyOptions extends RunOptions {
  readonly tables: readonly QualifiedName[];
  /** MySQL/MariaDB: the selection the plan came from, recorded in the journal (`migrationStatus` shows it). */
  readonly selection?: TableSelection;
}

interface SettledApply extends Settled {
  readonly tables: readonly QualifiedName[];
}

/** Every table the migration changes: migrated keys and referencing columns alike, sorted. */
export function touchedTables(inspection: Inspection): QualifiedName[] {
  const tables = new Map<string, QualifiedName>();
  for (const { table } of [...inspection.tables, ...inspection.columns]) tables.set(nameKey(table), table);
  return [...tables.values()].sort(byName);
}

/**
 * Runs a migration's steps on one connection, fingerprinting the tables before and after. Where DDL
 * is transactional (PostgreSQL, PGlite) it is one transaction that rolls back on any error,
 * difference or interruption. Elsewhere (MySQL, MariaDB) each statement commits as it runs, so the
 * run is journaled in `sheaf_migrations` of sheaf's state database `sheaf_<app>`: the plan and fingerprints first, then each step as it
 * commits; an interrupted run is continued by `resumeMigration` (or by applying the same plan
 * again) or undone by `abortMigration`, and another plan is refused (MIGRATION_UNFINISHED) while
 * it is unfinished. Throws NOT_INSTALLED there when the state database does not exist, VERIFY_FAILED naming each table, before and after, and
 * MIGRATION_INTERRUPTED when `signal` stopped it.
 *
 * @example
 * await applyMigration(pool, plan(inspection), { tables: touchedTables(inspection), progress: console.error });
 */
export function applyMigration(db: Database, migration: Migration, options: ApplyOptions): Promise<ApplyResult> {
  const executor = executorOf(db, 'applyMigration');
  const settled: SettledApply = { ...settle(executor, options), tables: options.tables };
  return executor.session((session) => {
    if (migration.transactional) return inTransaction(session, migration, settled);
    // A journal only where DDL commits on its own: a plan marked non-transactional by hand on PostgreSQL just runs.
    const outcome = 'the statements had committed as they ran';
    if (session.dialect.transactionalDdl) return runVerified(session, migration, settled, outcome);
    return runJournaled(session, migration, { tables: options.tables, selection: options.selection ?? null }, settled);
  });
}

async function inTransaction(session: SqlExecutor, migration: Migration, options: SettledApply): Promise<ApplyResult> {
  await session.query('begin');
  try {
    // Share mode keeps readers going but stops writes between the fingerprint and the ALTERs.
    const names = options.tables.map((table) => qualify(session.dialect, table)).join(', ');
    if (names) await session.query(`lock table ${names} in share mode`);
    const result = await runVerified(session, migration, options, 'rolled back');
    await session.query('commit');
    return result;
  } catch (error) {
    await session.query('rollback').catch(() => undefined);
    throw error;
  }
}

async function runVerified(
  session: SqlExecutor,
  migration: Migration,
  options: SettledApply,
  outcome: string,
): Promise<ApplyResult> {
  options.progress(`fingerprinting ${options.tables.length} tables before the migration\n`);
  const before = await options.fingerprint(session, options.tables);
  const total = migration.steps.length;
  for (const [index, step] of migration.steps.entries()) {
    await options.boundary({ when: 'before-step', step: index + 1, of: total });
    stopIfInterrupted(options.signal, `before step ${index + 1} of ${total}: ${outcome}`, { stepsDone: 0 });
    options.progress(`[${index + 1}/${total}] ${oneLine(step.describe)}\n`);
    await session.query(step.sql);
    await options.boundary({ when: 'after-step', step: index + 1, of: total });
  }
  options.progress(`fingerprinting ${options.tables.length} tables after the migration\n`);
  const after = await options.fingerprint(session, options.tables);
  verify(before, after, outcome, migration.dialect);
  return { before, after };
}
