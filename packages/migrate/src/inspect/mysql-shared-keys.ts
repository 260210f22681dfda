import type { SqlExecutor } from '@sheaf/core';
import { display, displayPart } from '../names.js';
import { byConstraint, type ForeignKeyColumnRow } from './mysql-foreign-keys.js';
import { sharedKeyReason } from './shared-key-reason.js';

// Every column pair of the foreign keys of the current database's tables onto another table.
const foreignKeysSql = `
  select table_schema as schema_name, table_name, constraint_name, column_name,
    referenced_table_schema as ref_schema, referenced_table_name as ref_table, referenced_column_name as ref_column
  from information_schema.key_column_usage
  where table_schema = database() and referenced_table_name is not null
    and not (referenced_table_schema = table_schema and referenced_table_name = table_name)
  order by table_name, constraint_name, ordinal_position`;

/**
 * Tables of the current database whose single-column primary key (from `keys`, table → key columns)
 * is also the whole of a foreign key to another table, a shared one-to-one key, by table name, each
 * with the reason the plan gives for leaving it without a sheaf trigger.
 */
export async function mysqlSharedKeys(
  session: SqlExecutor,
  keys: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, string>> {
  const shared = new Map<string, string>();
  for (const [row, ...more] of byConstraint(await session.query<ForeignKeyColumnRow>(foreignKeysSql))) {
    const key = keys.get(row?.table_name ?? '');
    if (!row || more.length > 0 || key?.length !== 1 || key[0] !== row.column_name || shared.has(row.table_name)) {
      continue;
    }
    const parent = display({ schema: row.ref_schema, name: row.ref_table }, 'mysql');
    shared.set(
      row.table_name,
      sharedKeyReason({
        table: display({ schema: row.schema_name, name: row.table_name }, 'mysql'),
        column: displayPart(row.column_name, 'mysql'),
        foreignKey: displayPart(row.constraint_name, 'mysql'),
        parent,
        parentColumn: displayPart(row.ref_column, 'mysql'),
      }),
    );
  }
  return shared;
}
