import { SheafError, type SqlExecutor } from '@sheaf/core';

// A named lock lives as long as the session that took it. A run killed in the middle of a statement
// leaves that statement running on the server, and its session (and lock) alive until it ends: so
// whoever gets the lock next sees every statement of earlier runs either committed or not started.
const lockSql = "select get_lock(concat('sheaf_migrate:', database()), ?) as locked, database() as name";
const unlockSql = "select release_lock(concat('sheaf_migrate:', database())) as released";

/**
 * Runs `work` holding the database's migration lock (MySQL/MariaDB `GET_LOCK`), waiting up to
 * `waitSeconds` for it; throws MIGRATION_UNFINISHED when another session keeps it.
 *
 * @example
 * await withMigrationLock(session, 10, () => runSteps(session));
 */
export async function withMigrationLock<T>(
  session: SqlExecutor,
  waitSeconds: number,
  work: () => Promise<T>,
): Promise<T> {
  const [row] = await session.query<{ locked: unknown; name: string | null }>(lockSql, [waitSeconds]);
  if (Number(row?.locked) !== 1) {
    throw new SheafError(
      'MIGRATION_UNFINISHED',
      `another session holds the migration lock of database ${row?.name ?? '(none)'} (waited ${waitSeconds} s): ` +
        'a sheaf migrate running there, or the last statement of a killed one still running on the server ' +
        '(see SHOW PROCESSLIST); run again once it has ended',
      { details: { database: row?.name ?? null, lock: `sheaf_migrate:${row?.name ?? ''}`, waitSeconds } },
    );
  }
  try {
    return await work();
  } finally {
    await session.query(unlockSql).catch(() => undefined);
  }
}
