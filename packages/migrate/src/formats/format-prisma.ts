import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Inspection, QualifiedName } from '../model.js';
import { display, displayPart } from '../names.js';
import { type FormatInput, type FormatOutput, timestampOf } from './format-common.js';
import { sqlText } from './format-sql.js';

/**
 * `--format prisma`: `<out>/prisma/migrations/<timestamp>_sheaf_ids/migration.sql` (or directly
 * under `--out` when it is the migrations folder, holding `migration_lock.toml`), for
 * `prisma migrate deploy`; the notes list the schema.prisma edits that make the schema match.
 *
 * @example
 * formatPrisma({ migration, inspection, out: '.', now: new Date() }).notes;
 */
export function formatPrisma(input: FormatInput): FormatOutput {
  const migrations = existsSync(join(input.out, 'migration_lock.toml'))
    ? input.out
    : join(input.out, 'prisma', 'migrations');
  const path = join(migrations, `${timestampOf(input.now)}_sheaf_ids`, 'migration.sql');
  // Prisma runs a migration file as one script; on PostgreSQL that is already a single transaction.
  return { files: [{ path, content: sqlText(input) }], notes: schemaEdits(input.inspection) };
}

function schemaEdits(inspection: Inspection): string[] {
  const keyDefault =
    inspection.dialect === 'postgres'
      ? '@default(dbgenerated("sheaf.next_id()"))'
      : '@default(autoincrement()) (the sheaf trigger assigns it; or let @sheaf/prisma assign ids)';
  const name = (table: QualifiedName) => display(table, inspection.dialect);
  const part = (identifier: string) => displayPart(identifier, inspection.dialect);
  const keys = new Set(inspection.tables.map((table) => `${name(table.table)}.${part(table.primaryKey.column)}`));
  const lines = inspection.tables.map(
    (table) => `model of ${name(table.table)}: ${part(table.primaryKey.column)} BigInt @id ${keyDefault}`,
  );
  for (const column of inspection.columns) {
    if (keys.has(`${name(column.table)}.${part(column.column)}`)) continue;
    lines.push(`model of ${name(column.table)}: ${part(column.column)} BigInt${column.nullable ? '?' : ''}`);
  }
  return [
    'Edit schema.prisma to match (then `prisma migrate deploy`; `prisma migrate diff` should show nothing left):',
    ...lines,
  ];
}
