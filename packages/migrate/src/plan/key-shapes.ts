import type { ColumnToWiden, Inspection, Migration, QualifiedName } from '../model.js';
import { nameKey } from '../names.js';

/** A MySQL/MariaDB key that has AUTO_INCREMENT, with its type once the migration widened it. */
export interface CountedKey {
  readonly key: ColumnToWiden;
  readonly type: string;
}

const columnKey = (column: { table: QualifiedName; column: string }) =>
  `${nameKey(column.table)}.${JSON.stringify(column.column)}`;

/**
 * The keys with AUTO_INCREMENT once the widening and trigger steps ran: those of the migrated tables
 * that had it, then those of tables sheaf's trigger keys already.
 */
export function autoIncrementKeys(inspection: Inspection): CountedKey[] {
  const widened = new Set(inspection.columns.map(columnKey));
  const keys = [
    ...inspection.tables.map((table) => table.primaryKey),
    ...(inspection.skipped ?? []).flatMap((entry) => entry.autoIncrementKey ?? []),
  ];
  return keys
    .filter((key) => key.attributes?.autoIncrement)
    .map((key) => ({ key, type: widened.has(columnKey(key)) ? 'bigint' : key.dataType }));
}

/** The keys whose AUTO_INCREMENT a migration drops, as its steps' effects say. */
export function droppedAutoIncrement(migration: Migration): { table: QualifiedName; column: string }[] {
  return migration.steps.flatMap((step) =>
    (step.effect ?? []).flatMap((fact) =>
      fact.kind === 'no auto_increment' ? [{ table: fact.table, column: fact.column }] : [],
    ),
  );
}

/**
 * The migrated tables' keys that keep AUTO_INCREMENT after the migration: there a driver's
 * `insertId` of a one-row insert is the sheaf id, and Prisma reads it back; drizzle's
 * `$returningId()` fails.
 */
export function keptAutoIncrement(inspection: Inspection, migration: Migration): ColumnToWiden[] {
  const dropped = new Set(droppedAutoIncrement(migration).map(columnKey));
  return inspection.tables
    .map((table) => table.primaryKey)
    .filter((key) => key.attributes?.autoIncrement && !dropped.has(columnKey(key)));
}
