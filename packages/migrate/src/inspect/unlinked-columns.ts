import type { DialectName, SqlExecutor } from '@sheaf/core';
import type { Inspection, MigrationWarning } from '../model.js';
import { display, displayPart, nameKey } from '../names.js';
import { type KeyNames, referencedTable } from './reference-names.js';

/** What a dialect's `candidatesSql` returns: integer columns named like an id and in no foreign key. */
interface CandidateRow {
  schema_name: string;
  table_name: string;
  column_name: string;
  type: string;
}

/**
 * One warning per column named like a reference to a migrated table (`customer_id`) without a
 * foreign key: nothing tells the migration to widen it, so sheaf ids will not fit it. A table's
 * own key name and columns that widen anyway are no such reference.
 */
export async function unlinkedColumns(
  session: SqlExecutor,
  candidatesSql: string,
  inspection: Pick<Inspection, 'columns'>,
  names: KeyNames,
  dialect: DialectName,
): Promise<MigrationWarning[]> {
  const widened = new Set(inspection.columns.map((c) => `${nameKey(c.table)}.${c.column}`));
  const rows = await session.query<CandidateRow>(candidatesSql);
  return rows.flatMap((row) => {
    const table = { schema: row.schema_name, name: row.table_name };
    const target = referencedTable(names, row.column_name);
    if (!target || nameKey(target) === nameKey(table) || widened.has(`${nameKey(table)}.${row.column_name}`)) return [];
    return [
      {
        kind: 'unlinked-column' as const,
        objects: [{ type: 'column' as const, ...table, column: row.column_name }],
        message:
          `${display(table, dialect)}.${displayPart(row.column_name, dialect)} (${row.type}) looks like a reference to ` +
          `${display(target, dialect)} but has no foreign key, so it is not widened and sheaf ids will not fit it: ` +
          'declare the foreign key before migrating, or change it to bigint',
      },
    ];
  });
}
