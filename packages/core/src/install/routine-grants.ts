import type { SqlExecutor } from '../executor.js';
import type { DialectInstall } from './dialect-install.js';

type Row = Record<string, unknown>;

/** ER_TABLEACCESS_DENIED_ERROR: the installer may not read the grant tables. */
const accessDenied = 1142;

/**
 * The routine privileges an install may drop with the routines it replaces (see
 * `DialectInstall.routineGrants`). An installer that may not read them cannot restore them either:
 * docs/sql/mysql.md says to grant again after such an upgrade.
 */
export async function keptRoutineGrants(session: SqlExecutor, dialect: DialectInstall): Promise<Row[]> {
  if (!dialect.routineGrants) return [];
  return session.query<Row>(dialect.routineGrants.query).catch((error: unknown) => {
    if ((error as { errno?: unknown }).errno === accessDenied) return [];
    throw error;
  });
}

/** Grants again what {@link keptRoutineGrants} read and the install dropped; returns `result`. */
export async function restoreRoutineGrants<T>(
  session: SqlExecutor,
  dialect: DialectInstall,
  kept: readonly Row[],
  result: T,
): Promise<T> {
  if (!dialect.routineGrants || kept.length === 0) return result;
  const still = new Set((await session.query<Row>(dialect.routineGrants.query)).map((row) => JSON.stringify(row)));
  const missing = kept.filter((row) => !still.has(JSON.stringify(row)));
  for (const statement of dialect.routineGrants.statements(missing)) await session.query(statement);
  return result;
}
