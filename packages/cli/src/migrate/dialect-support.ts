import type { DialectName, SqlExecutor } from '@sheaf/core';
import type { Fingerprinter } from './apply.js';
import { fingerprintMysql } from './fingerprint-mysql.js';
import { fingerprintPostgres } from './fingerprint-postgres.js';
import { inspectMysql } from './inspect-mysql.js';
import { inspectPostgres } from './inspect-postgres.js';
import type { Inspection, Migration, TableSelection } from './model.js';
import { renderMysql } from './render-mysql.js';
import { renderPostgres } from './render-postgres.js';

/** What `sheaf migrate` needs from a dialect: read the schema, write the migration, fingerprint tables. */
export interface MigrateDialect {
  inspect(executor: SqlExecutor, selection: TableSelection): Promise<Inspection>;
  render(inspection: Inspection): Migration;
  readonly fingerprint: Fingerprinter;
}

const dialects: Record<DialectName, MigrateDialect> = {
  postgres: { inspect: inspectPostgres, render: renderPostgres, fingerprint: fingerprintPostgres },
  mysql: { inspect: inspectMysql, render: renderMysql, fingerprint: fingerprintMysql },
};

/** The migrate functions of a dialect. */
export function migrateDialect(name: DialectName): MigrateDialect {
  return dialects[name];
}
