import type { SqlExecutor } from '../executor.js';
import type { DialectInstall } from './dialect-install.js';
import { leftoverDrops } from './leftovers.js';
import type { SqlFile } from './sql-file.js';
import { statementsOf } from './sql-file.js';

/**
 * Applies one file not yet recorded. With transactional DDL (PostgreSQL) the version row goes in
 * first: a racing installer that slipped past the lock fails on it, and a failure rolls everything
 * back. Without it (MySQL commits each DDL statement), a row written first would outlive a failed
 * statement and make every later install skip the file; there the row goes in last, GET_LOCK keeps
 * installers apart, and what an earlier failed attempt left of the file is dropped first.
 */
export async function applyFile(session: SqlExecutor, dialect: DialectInstall, file: SqlFile): Promise<void> {
  const record = (where: DialectInstall) => session.query(where.record, [file.version, file.name, file.checksum]);
  const transactional = session.dialect.transactionalDdl;
  if (transactional) await record(dialect);
  else for (const drop of leftoverDrops(file)) await session.query(drop);
  for (const statement of statementsOf(file.sql)) await session.query(statement);
  // The file may have moved the version table (MySQL 0012): record where it is now.
  if (!transactional) await record((await dialect.bind?.(session)) ?? dialect);
}
