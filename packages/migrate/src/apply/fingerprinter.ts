import type { DialectName, SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableFingerprint } from '../model.js';
import { fingerprintMysql } from './fingerprint-mysql.js';
import { fingerprintPostgres } from './fingerprint-postgres.js';

/** Row count and checksum of each table: `fingerprintPostgres`, `fingerprintMysql`. */
export type Fingerprinter = (executor: SqlExecutor, tables: readonly QualifiedName[]) => Promise<TableFingerprint[]>;

const fingerprinters: Record<DialectName, Fingerprinter> = {
  postgres: fingerprintPostgres,
  mysql: fingerprintMysql,
};

/**
 * The fingerprint function of an executor's dialect. Kept apart from `migrate.ts` so that the
 * run options, which default to it, need not import the entry points that apply migrations.
 */
export function fingerprinterOf(executor: SqlExecutor): Fingerprinter {
  return fingerprinters[executor.dialect.name];
}
