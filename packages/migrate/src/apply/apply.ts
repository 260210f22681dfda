import { type Database, type DialectName, executorOf, SheafError, type SqlExecutor } from '@sheaf/core';
import { fingerprinterOf } from '../migrate.js';
import type { Inspection, Migration, QualifiedName, TableFingerprint } from '../model.js';
import { byName, display, nameKey, qualify } from '../names.js';
import { oneLine } from '../one-line.js';

/** Row count and checksum of each table: `fingerprintPostgres`, `fingerprintMysql`. */
export type Fingerprinter = (executor: SqlExecutor, tables: readonly QualifiedName[]) => Promise<TableFingerprint[]>;

/** How to apply: which tables to verify (`touchedTables(inspection)`), and where progress lines go. */
export interface ApplyOptions {
  readonly tables: readonly QualifiedName[];
  /** Row count and checksum of each table; default: the dialect's own (`fingerprint`). */
  readonly fingerprint?: Fingerprinter;
  /** Called with each progress line (ending in a newline); default: none. */
  readonly progress?: (line: string) => void;
}

interface Settled {
  readonly tables: readonly QualifiedName[];
  readonly fingerprint: Fingerprinter;
  readonly progress: (line: string) => void;
}

/** The fingerprints before and after: equal, or applyMigration would have thrown. */
export interface ApplyResult {
  readonly before: readonly TableFingerprint[];
  readonly after: readonly TableFingerprint[];
}

/** Every table the migration changes: migrated keys and referencing columns alike, sorted. */
export function touchedTables(inspection: Inspection): QualifiedName[] {
  const tables = new Map<string, QualifiedName>();
  for (const { table } of [...inspection.tables, ...inspection.columns]) tables.set(nameKey(table), table);
  return [...tables.values()].sort(byName);
}

/**
 * Runs a migration's steps on one connection, fingerprinting the tables before and after. Where DDL
 * is transactional (PostgreSQL, PGlite) it is one transaction that rolls back on any error or
 * difference; elsewhere (MySQL, MariaDB) each statement commits as it runs and a difference is
 * reported after the fact. Throws VERIFY_FAILED naming each table, before and after.
 *
 * @example
 * await applyMigration(pool, plan(inspection), { tables: touchedTables(inspection), progress: console.error });
 */
export function applyMigration(db: Database, migration: Migration, options: ApplyOptions): Promise<ApplyResult> {
  const executor = executorOf(db, 'applyMigration');
  const settled: Settled = {
    tables: options.tables,
    fingerprint: options.fingerprint ?? fingerprinterOf(executor),
    progress: options.progress ?? (() => undefined),
  };
  return executor.session((session) =>
    migration.transactional ? inTransaction(session, migration, settled) : stepByStep(session, migration, settled),
  );
}

async function inTransaction(session: SqlExecutor, migration: Migration, options: Settled): Promise<ApplyResult> {
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

function stepByStep(session: SqlExecutor, migration: Migration, options: Settled): Promise<ApplyResult> {
  return runVerified(session, migration, options, 'the statements had committed as they ran');
}

async function runVerified(
  session: SqlExecutor,
  migration: Migration,
  options: Settled,
  outcome: string,
): Promise<ApplyResult> {
  options.progress(`fingerprinting ${options.tables.length} tables before the migration\n`);
  const before = await options.fingerprint(session, options.tables);
  const total = migration.steps.length;
  for (const [index, step] of migration.steps.entries()) {
    options.progress(`[${index + 1}/${total}] ${oneLine(step.describe)}\n`);
    await session.query(step.sql);
  }
  options.progress(`fingerprinting ${options.tables.length} tables after the migration\n`);
  const after = await options.fingerprint(session, options.tables);
  verify(before, after, outcome, migration.dialect);
  return { before, after };
}

function verify(
  before: readonly TableFingerprint[],
  after: readonly TableFingerprint[],
  outcome: string,
  dialect: DialectName,
): void {
  const afterByTable = new Map(after.map((fingerprint) => [nameKey(fingerprint.table), fingerprint]));
  const differences = before.flatMap((old) => {
    const now = afterByTable.get(nameKey(old.table));
    if (now && now.rows === old.rows && now.checksum === old.checksum) return [];
    const then = `had ${old.rows} rows with checksum ${old.checksum}`;
    return [
      `${display(old.table, dialect)} ${then}, now ${now ? `${now.rows} rows with checksum ${now.checksum}` : 'is gone'}`,
    ];
  });
  if (differences.length === 0) return;
  throw new SheafError('VERIFY_FAILED', `verification failed, ${outcome}: ${differences.join('; ')}`, {
    details: { tables: differences },
  });
}
