import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QualifiedName } from '../model.js';
import { display, displayPart } from '../names.js';
import { droppedAutoIncrement, keptAutoIncrement } from '../plan/key-shapes.js';
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
  return { files: [{ path, content: sqlText(input) }], notes: schemaEdits(input) };
}

type KeyColumn = { readonly table: QualifiedName; readonly column: string };

function schemaEdits(input: FormatInput): string[] {
  const { inspection, migration } = input;
  const name = (table: QualifiedName) => display(table, inspection.dialect);
  const part = (identifier: string) => displayPart(identifier, inspection.dialect);
  const columnName = (column: KeyColumn) => `${name(column.table)}.${part(column.column)}`;
  const counted = new Set(keptAutoIncrement(inspection, migration).map(columnName));
  const keyDefault = (key: KeyColumn) =>
    inspection.dialect === 'postgres'
      ? '@default(dbgenerated("sheaf.next_id()"))'
      : counted.has(columnName(key))
        ? '@default(autoincrement()) (the sheaf trigger sets it and create() reads it back as the insertId; or let @sheaf/prisma assign ids)'
        : // Without AUTO_INCREMENT Prisma reads back the insertId, 0, and create() returns null (tested).
          '@default(dbgenerated()) and an app-side strategy of @sheaf/prisma (snowflake, segment or batch): ' +
          'without AUTO_INCREMENT Prisma cannot read back an id the trigger set';
  const keys = new Set(inspection.tables.map((table) => columnName(table.primaryKey)));
  const lines = inspection.tables.map(
    (table) =>
      `model of ${name(table.table)}: ${part(table.primaryKey.column)} BigInt @id ${keyDefault(table.primaryKey)}`,
  );
  for (const column of droppedAutoIncrement(migration)) {
    if (keys.has(columnName(column))) continue;
    lines.push(`model of ${name(column.table)}: ${part(column.column)} BigInt @id ${keyDefault(column)}`);
  }
  for (const column of inspection.columns) {
    if (keys.has(columnName(column))) continue;
    lines.push(`model of ${name(column.table)}: ${part(column.column)} BigInt${column.nullable ? '?' : ''}`);
  }
  return [
    'Edit schema.prisma to match (then `prisma migrate deploy`; `prisma migrate diff` should show nothing left):',
    ...lines,
  ];
}
