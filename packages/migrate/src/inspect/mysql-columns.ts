import type { SqlExecutor } from '@sheaf/core';
import type { ColumnToWiden, QualifiedName } from '../model.js';
import { nameKey } from '../names.js';

/** A column by table and name. */
export interface MysqlColumnRef {
  readonly table: QualifiedName;
  readonly column: string;
}

/** A column as information_schema describes it, ready to widen. */
export interface MysqlColumn extends ColumnToWiden {
  /** `int`, `bigint`, …: the type without display width or sign. */
  readonly baseType: string;
  readonly unsigned: boolean;
  /** Set for generated (virtual or stored) columns, whose type follows their expression. */
  readonly generated: boolean;
}

interface ColumnRow {
  schema_name: string;
  table_name: string;
  column_name: string;
  data_type: string;
  column_type: string;
  is_nullable: string;
  column_default: string | null;
  extra: string;
  column_comment: string;
}

const columnsSql = (schemas: number) => `
  select table_schema as schema_name, table_name, column_name, data_type, column_type, is_nullable,
    column_default, extra, column_comment
  from information_schema.columns
  where table_schema in (${Array.from({ length: schemas }, () => '?').join(', ')})`;

/** A map key for a column reference. */
export const columnKey = (ref: MysqlColumnRef): string => `${nameKey(ref.table)}.${JSON.stringify(ref.column)}`;

/** Describes every column of the given databases, by {@link columnKey}. */
export async function readMysqlColumns(
  executor: SqlExecutor,
  schemas: readonly string[],
): Promise<Map<string, MysqlColumn>> {
  const unique = [...new Set(schemas)];
  // `in ()` is a syntax error: a database without foreign keys whose keys sheaf fills already asks for none.
  if (unique.length === 0) return new Map();
  const rows = await executor.query<ColumnRow>(columnsSql(unique.length), unique);
  return new Map(rows.map((row) => [columnKey(toRef(row)), toColumn(row)]));
}

/** The column as the model carries it, without the fields only inspection needs. */
export function toWiden(column: MysqlColumn): ColumnToWiden {
  const { table, column: name, dataType, nullable, attributes } = column;
  return attributes
    ? { table, column: name, dataType, nullable, attributes }
    : { table, column: name, dataType, nullable };
}

function toRef(row: ColumnRow): MysqlColumnRef {
  return { table: { schema: row.schema_name, name: row.table_name }, column: row.column_name };
}

function toColumn(row: ColumnRow): MysqlColumn {
  const extra = row.extra.toLowerCase();
  return {
    ...toRef(row),
    dataType: row.column_type,
    nullable: row.is_nullable === 'YES',
    baseType: row.data_type.toLowerCase(),
    unsigned: /\bunsigned\b/i.test(row.column_type),
    generated: extra.includes('generated') && !extra.includes('default_generated'),
    attributes: {
      // MariaDB prints a NULL default as the word NULL, MySQL 8 as SQL NULL: the same thing.
      default: row.column_default === null || row.column_default === 'NULL' ? null : row.column_default,
      autoIncrement: extra.includes('auto_increment'),
      comment: row.column_comment,
    },
  };
}
