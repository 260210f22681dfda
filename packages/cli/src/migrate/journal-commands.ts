import { isSheafError, SheafError, type SqlExecutor } from '@sheaf/core';
import {
  abortMigration,
  displayName,
  journalUntrusted,
  type MigrationRecord,
  migrationStatus,
  type RunOptions,
  resumeMigration,
  type TableSelection,
} from '@sheaf/migrate';
import { type Io, toJson } from '../io.js';
import { failpointOf } from './failpoint.js';
import { withInterrupt } from './interrupt.js';
import { nextCommands, sameSelection, selectionArgs, statusJson, statusText } from './journal-text.js';

/** `sheaf migrate --status`: where the latest migration of the database stands. */
export async function runStatus(executor: SqlExecutor, json: boolean, io: Io): Promise<void> {
  const status = await migrationStatus(executor);
  if (json) return io.out(toJson(statusJson(status)));
  const [row] =
    status.dialect === 'mysql' ? await executor.query<{ name: string | null }>('select database() as name') : [];
  io.out(statusText(status, row?.name ?? '(none)'));
}

/** `sheaf migrate --abort`: undoes the unfinished migration, or says there is none. */
export async function runAbort(executor: SqlExecutor, json: boolean, io: Io): Promise<void> {
  const started = Date.now();
  const result = await interruptible(io, nextCommands('aborting', null), (options) =>
    abortMigration(executor, options),
  );
  if (json) return io.out(toJson({ aborted: result }));
  if (!result) return io.out('nothing to abort: no unfinished migration in this database\n');
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.out(
    `aborted migration #${result.migration} in ${seconds} s: undid ${result.undone} steps; verified ${result.after.length} ` +
      `tables: row counts and checksums as before its first step (${result.after.map((f) => displayName(f.table, 'mysql')).join(', ')})\n`,
  );
}

/**
 * Before anything is inspected: where DDL is not transactional and a journaled migration is
 * unfinished, `--apply` with the same selection resumes it and anything else is refused
 * (MIGRATION_UNFINISHED) — a plan made from a half-migrated schema no longer sees what the finished
 * steps dropped. A record that fails its HMAC is refused (JOURNAL_UNTRUSTED) and nothing from it
 * is run. Resolves to whether it handled the run.
 */
export async function continueUnfinished(
  executor: SqlExecutor,
  asked: { selection: TableSelection; apply: boolean; json: boolean },
  io: Io,
): Promise<boolean> {
  if (executor.dialect.transactionalDdl) return false;
  const { latest, unfinished } = await migrationStatus(executor);
  if (!unfinished || !latest) return false;
  if (!latest.trusted) throw journalUntrusted(latest);
  if (!asked.apply || latest.state !== 'running' || !sameSelection(latest.selection, asked.selection)) {
    throw refusal(latest, asked.selection);
  }
  if (!asked.json)
    io.out(
      `Resuming migration #${latest.id} (${selectionArgs(latest.selection)}): ${latest.stepsDone} of ${latest.steps.length} steps done, started ${latest.startedAt}\n`,
    );
  const started = Date.now();
  const next = nextCommands('running', latest.selection);
  const result = await interruptible(io, next, (options) => resumeMigration(executor, options));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const tables = result.after.map((f) => displayName(f.table, 'mysql'));
  if (asked.json) {
    io.out(
      toJson({
        resumed: { migration: result.migration, resumedAt: result.resumedAt, steps: latest.steps.length },
        verified: result.after,
      }),
    );
  } else {
    io.out(
      `\nfinished migration #${result.migration} in ${seconds} s (${latest.steps.length - (result.resumedAt ?? 0)} steps this run); ` +
        `verified ${tables.length} tables: row counts and checksums as before its first step (${tables.join(', ')})\n`,
    );
  }
  return true;
}

function refusal(record: MigrationRecord, asked: TableSelection): SheafError {
  const what =
    record.state === 'aborting'
      ? 'it is being aborted'
      : sameSelection(record.selection, asked)
        ? 'a plan now would be made from a half-migrated schema'
        : `you asked for ${selectionArgs(asked)}`;
  return new SheafError(
    'MIGRATION_UNFINISHED',
    `migration #${record.id} (${selectionArgs(record.selection)}) is unfinished in this database, ${record.stepsDone} of ` +
      `${record.steps.length} steps done, started ${record.startedAt}; ${what}: nothing was changed; ` +
      nextCommands(record.state, record.selection).trim().replaceAll('\n', '; '),
    {
      details: { migration: record.id, state: record.state, selection: record.selection, stepsDone: record.stepsDone },
    },
  );
}

/**
 * Runs an apply, resume or abort with SIGINT stopping it at the next step boundary and
 * SHEAF_MIGRATE_FAILPOINT honoured; on MIGRATION_INTERRUPTED prints `next` (how to go on), or that
 * nothing changed when it stopped before the journal recorded anything, then rethrows (exit 130).
 */
export async function interruptible<T>(io: Io, next: string, work: (options: RunOptions) => Promise<T>): Promise<T> {
  const boundary = failpointOf(io.env);
  return withInterrupt(io, async (signal) => {
    try {
      return await work({ signal, boundary, progress: (line) => io.err(line) });
    } catch (error) {
      if (isSheafError(error, 'MIGRATION_INTERRUPTED')) {
        io.err(typeof error.details?.migration === 'number' ? next : 'nothing was changed\n');
      }
      throw error;
    }
  });
}
