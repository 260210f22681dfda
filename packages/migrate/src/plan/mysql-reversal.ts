import type { ColumnToWiden, ForeignKey, MigrationStep, QualifiedName } from '../model.js';
import type { CountedKey } from './key-shapes.js';
import { addForeignKey, dropForeignKey, modifyColumn } from './mysql-clauses.js';

/** What a MySQL step adds to its statement: the catalog facts it makes true, and its inverse. */
export type Reversal = Required<Pick<MigrationStep, 'effect' | 'undo'>>;

/** How the step's statement names a table: unqualified in the migration's own database. */
type Ref = (name: QualifiedName) => string;

const foreignKeys = (table: QualifiedName, fks: readonly ForeignKey[], present: boolean) => ({
  kind: 'foreign keys' as const,
  table,
  names: fks.map((fk) => fk.name),
  present,
});

// Each effect must be false before its step and true after it, given that the steps before it ran
// and those after it did not; docs/migrating-existing-tables.md ("If it stops midway") argues it
// for each kind of step. A resumed run trusts the catalog only for the step it was in when it stopped.

/** Dropping a table's foreign keys: they are gone; undone by adding them back as inspected. */
export function dropForeignKeysReversal(ref: Ref, table: QualifiedName, fks: readonly ForeignKey[]): Reversal {
  return {
    effect: [foreignKeys(table, fks, false)],
    undo: `alter table ${ref(table)} ${fks.map(addForeignKey).join(', ')}`,
  };
}

/**
 * Widening a table's columns (and adding back the foreign keys whose parent is done): they are
 * signed bigint (which none of them was: inspection leaves those out) and the keys exist; undone by
 * dropping those keys and restating each column's inspected type in one statement.
 */
export function widenReversal(
  ref: Ref,
  table: QualifiedName,
  columns: readonly ColumnToWiden[],
  fks: readonly ForeignKey[],
): Reversal {
  const widened = { kind: 'bigint columns' as const, table, columns: columns.map((column) => column.column) };
  return {
    effect: fks.length === 0 ? [widened] : [widened, foreignKeys(table, fks, true)],
    undo: `alter table ${ref(table)} ${[...fks.map(dropForeignKey), ...columns.map((c) => modifyColumn(c, c.dataType))].join(', ')}`,
  };
}

/** Adding back foreign keys after both of their sides changed: they exist; undone by dropping them. */
export function readdReversal(ref: Ref, table: QualifiedName, fks: readonly ForeignKey[]): Reversal {
  return {
    effect: [foreignKeys(table, fks, true)],
    undo: `alter table ${ref(table)} ${fks.map(dropForeignKey).join(', ')}`,
  };
}

/** Creating sheaf's trigger: it exists (its name was free: inspection checks); undone by dropping it. */
export function triggerReversal(ref: Ref, trigger: QualifiedName): Reversal {
  return { effect: [{ kind: 'trigger', name: trigger }], undo: `drop trigger if exists ${ref(trigger)}` };
}

/**
 * Dropping a key's AUTO_INCREMENT: the key has none (it had it at inspection, and no other step
 * removes it); undone by restating the key as inspected, AUTO_INCREMENT included, in its type then,
 * with the counter where it was: added back, AUTO_INCREMENT would start above the largest key
 * instead, below ids of rows deleted before the migration.
 */
export function dropAutoIncrementReversal(ref: Ref, { key, type }: CountedKey): Reversal {
  const counter = key.attributes?.counter;
  return {
    effect: [{ kind: 'no auto_increment', table: key.table, column: key.column }],
    undo: `alter table ${ref(key.table)} ${modifyColumn(key, type)}${counter === undefined ? '' : `, auto_increment = ${counter}`}`,
  };
}
