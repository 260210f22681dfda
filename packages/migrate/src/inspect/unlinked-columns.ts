import type { DialectName } from '@sheaf/core';
import type { Inspection, MigrationWarning, QualifiedName } from '../model.js';
import { display, displayPart, nameKey } from '../names.js';
import { type KeyNames, referencedTable } from './reference-names.js';

/** An integer column named like an id and in no foreign key, as a dialect's catalog query finds it. */
export interface IdColumnWithoutKey {
  readonly table: QualifiedName;
  readonly column: string;
  readonly type: string;
}

/**
 * One warning per column named like a reference to a migrated table (`customer_id`) without a
 * foreign key: nothing tells the migration to widen it, so sheaf ids will not fit it. A table's
 * own key name and columns that widen anyway are no such reference.
 */
export function unlinkedColumnWarnings(
  candidates: readonly IdColumnWithoutKey[],
  inspection: Pick<Inspection, 'columns'>,
  names: KeyNames,
  dialect: DialectName,
): MigrationWarning[] {
  const widened = new Set(inspection.columns.map((c) => `${nameKey(c.table)}.${c.column}`));
  return candidates.flatMap(({ table, column, type }) => {
    const target = referencedTable(names, column);
    if (!target || nameKey(target) === nameKey(table) || widened.has(`${nameKey(table)}.${column}`)) return [];
    return [
      {
        kind: 'unlinked-column' as const,
        objects: [{ type: 'column' as const, ...table, column }],
        message:
          `${display(table, dialect)}.${displayPart(column, dialect)} (${type}) looks like a reference to ` +
          `${display(target, dialect)} but has no foreign key, so it is not widened and sheaf ids will not fit it: ` +
          'declare the foreign key before migrating, or change it to bigint',
      },
    ];
  });
}
