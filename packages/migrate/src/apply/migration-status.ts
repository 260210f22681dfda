import { type Database, type DialectName, executorOf, type SqlExecutor } from '@sheaf/core';
import type { QualifiedName } from '../model.js';
import { type OnlinePhase, readStates } from '../online/online-state.js';
import { isUnfinished, latestRecord, type MigrationRecord } from './journal-store.js';

/** A table of a PostgreSQL `--online` migration and its phase. */
export interface OnlineTableStatus {
  readonly table: QualifiedName;
  readonly phase: OnlinePhase;
  readonly rowsDone: bigint;
  readonly rowsTotal: bigint | null;
}

/** Where migrations of a database stand. */
export interface MigrationStatus {
  readonly dialect: DialectName;
  /**
   * MySQL/MariaDB: the latest journaled migration, or null when none was ever applied here.
   * Always null on PostgreSQL, where `applyMigration` is one transaction: it committed or changed nothing.
   * A record that fails its HMAC has `trusted: false`: it is reported, never run.
   */
  readonly latest: MigrationRecord | null;
  /** `latest` is running or aborting: resume or abort it before migrating anything else. */
  readonly unfinished: boolean;
  /** PostgreSQL: every table `runOnline` recorded in `sheaf.online_migrations`, done or not. */
  readonly online: readonly OnlineTableStatus[];
}

/**
 * Reads where migrations of a database stand, changing nothing: on MySQL/MariaDB the latest
 * journaled migration (steps done of all, the step that was running, when it started and
 * finished); on PostgreSQL the tables of online migrations and their phases.
 *
 * @example
 * const status = await migrationStatus(pool);
 * if (status.unfinished) console.log(`migration #${status.latest?.id}: ${status.latest?.stepsDone} steps done`);
 */
export function migrationStatus(db: Database): Promise<MigrationStatus> {
  const executor = executorOf(db, 'migrationStatus');
  return executor.session(async (session) => {
    const dialect = session.dialect.name;
    if (session.dialect.transactionalDdl) {
      return { dialect, latest: null, unfinished: false, online: await online(session) };
    }
    const latest = await latestRecord(session);
    return { dialect, latest, unfinished: latest !== null && isUnfinished(latest), online: [] };
  });
}

async function online(session: SqlExecutor): Promise<OnlineTableStatus[]> {
  const [row] = await session.query<{ present: boolean }>(
    "select to_regclass('sheaf.online_migrations') is not null as present",
  );
  if (row?.present !== true) return [];
  const states = await readStates(session);
  return states.map(({ table, phase, rowsDone, rowsTotal }) => ({ table, phase, rowsDone, rowsTotal }));
}
