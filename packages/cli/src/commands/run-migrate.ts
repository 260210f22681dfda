import type { SqlExecutor } from '@sheaf/core';
import {
  applyMigration,
  clientScript,
  displayName,
  type FormatName,
  type Inspection,
  inspect,
  type Migration,
  plan,
  planText,
  runOnline,
  type TableSelection,
  touchedTables,
  writeMigration,
} from '@sheaf/migrate';
import { type Io, toJson } from '../io.js';
import { continueUnfinished, interruptible } from '../migrate/journal-commands.js';
import { nextCommands } from '../migrate/journal-text.js';

/** What `sheaf migrate`'s flags ask for, checked before connecting. */
export interface MigrateOptions {
  readonly selection: TableSelection;
  readonly format: FormatName;
  readonly out: string | undefined;
  readonly apply: boolean;
  readonly online: boolean;
  /** false with --no-auto-increment (MySQL/MariaDB): keys end without AUTO_INCREMENT. */
  readonly autoIncrement: boolean;
  readonly json: boolean;
}

/**
 * Inspects, renders, and then prints the plan and SQL, writes files (`--out`), applies (`--apply`)
 * or hands over to the online mode (`--online`). The plan goes to stdout, progress to stderr.
 */
export async function runMigrate(executor: SqlExecutor, options: MigrateOptions, io: Io): Promise<void> {
  if (await continueUnfinished(executor, options, io)) return;
  const inspection = await inspect(executor, options.selection);
  if (options.online) return runOnline(executor, inspection, io);
  // Applied here, the triggers may name this database's sheaf_<database>; files may run elsewhere.
  const migration = plan(inspection, { autoIncrement: options.autoIncrement, triggersCallState: options.apply });
  const report: Record<string, unknown> = {
    ...inspection,
    steps: migration.steps,
    transactional: migration.transactional,
  };
  if (!options.json) io.out(planText(inspection, migration));
  if (migration.steps.length > 0) {
    if (options.out !== undefined) report.files = await writeFiles(inspection, migration, options, io);
    if (options.apply) report.verified = await apply(executor, inspection, migration, options, io);
    if (options.out === undefined && !options.apply && !options.json) {
      io.out(`\n${clientScript({ migration, inspection, out: '.', now: new Date() })}`);
    }
  }
  if (options.json) io.out(toJson(report));
}

async function writeFiles(
  inspection: Inspection,
  migration: Migration,
  options: MigrateOptions,
  io: Io,
): Promise<string[]> {
  const output = await writeMigration(options.format, {
    migration,
    inspection,
    out: options.out ?? '.',
    now: new Date(),
  });
  const paths = output.files.map((file) => file.path);
  if (!options.json) {
    io.out(`\nwrote ${options.format} migration: ${paths.join(', ')}\n`);
    if (output.notes.length > 0) io.out(`${output.notes.join('\n')}\n`);
  }
  return paths;
}

async function apply(
  executor: SqlExecutor,
  inspection: Inspection,
  migration: Migration,
  options: MigrateOptions,
  io: Io,
): Promise<unknown[]> {
  const tables = touchedTables(inspection);
  const started = Date.now();
  const next = nextCommands('running', options.selection);
  const result = await interruptible(io, next, (run) =>
    applyMigration(executor, migration, { ...run, tables, selection: options.selection }),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!options.json) {
    const dropped = migration.steps.filter((step) => step.effect?.some((fact) => fact.kind === 'no auto_increment'));
    const verified = tables.map((table) => displayName(table, inspection.dialect)).join(', ');
    const parts = [
      `migrated ${inspection.tables.length} tables in ${seconds} s`,
      dropped.length > 0 ? `dropped AUTO_INCREMENT from ${dropped.length} keys` : '',
      tables.length > 0 ? `verified ${tables.length} tables: row counts and checksums unchanged (${verified})` : '',
    ];
    io.out(`\n${parts.filter(Boolean).join('; ')}\n`);
  }
  return result.after.map((after) => ({ table: after.table, rows: after.rows, checksum: after.checksum }));
}
