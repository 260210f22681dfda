import { mysqlDialect, SheafError, type SqlExecutor } from '@sheaf/core';
import type { ColumnToWiden, ForeignKey } from '../model.js';
import { byName, display, displayPart } from '../names.js';
import { columnKey, type MysqlColumn, type MysqlColumnRef, readMysqlColumns, toWiden } from './mysql-columns.js';

/** The columns that change type, and the foreign keys to drop and re-create around the change. */
export interface MysqlKeyClosure {
  readonly columns: ColumnToWiden[];
  readonly foreignKeys: MysqlForeignKey[];
}

/** A foreign key as the closure needs it: the model's, plus its column pairs as refs. */
export interface MysqlForeignKey extends ForeignKey {
  readonly pairs: readonly { readonly from: MysqlColumnRef; readonly to: MysqlColumnRef }[];
}

/** One column pair of a foreign key, as information_schema.key_column_usage gives it. */
export interface ForeignKeyColumnRow {
  schema_name: string;
  table_name: string;
  constraint_name: string;
  column_name: string;
  ref_schema: string;
  ref_table: string;
  ref_column: string;
}

interface ForeignKeyRow extends ForeignKeyColumnRow {
  update_rule: string;
  delete_rule: string;
}

// Every foreign key into or out of the current database, one row per column pair in key order.
const foreignKeysSql = `
  select k.table_schema as schema_name, k.table_name, k.constraint_name, k.column_name,
    k.referenced_table_schema as ref_schema, k.referenced_table_name as ref_table,
    k.referenced_column_name as ref_column, r.update_rule, r.delete_rule
  from information_schema.key_column_usage k
  join information_schema.referential_constraints r on r.constraint_schema = k.constraint_schema
    and r.constraint_name = k.constraint_name and r.table_name = k.table_name
  where k.referenced_table_name is not null
    and (k.referenced_table_schema = database() or k.table_schema = database())
  order by k.table_schema, k.table_name, k.constraint_name, k.ordinal_position`;

/** Already what sheaf keys are: no type change needed. */
const isSignedBigint = (column: MysqlColumn) => column.baseType === 'bigint' && !column.unsigned;

/**
 * Follows foreign keys from the migrated keys to every column that references them — through
 * composite keys, self-references and chains — and returns the columns whose type changes (to signed
 * bigint) with the constraints touching them. Throws UNSUPPORTED_KEY when a changing column
 * references one that would keep a narrower type: the constraint could not be re-created.
 */
export async function mysqlKeyClosure(executor: SqlExecutor, keys: readonly MysqlColumn[]): Promise<MysqlKeyClosure> {
  const foreignKeys = byConstraint(await executor.query<ForeignKeyRow>(foreignKeysSql)).map(toForeignKey);
  const schemas = foreignKeys.flatMap((fk) => [fk.table.schema, fk.references.schema]);
  const columns = await readMysqlColumns(executor, [...schemas, ...keys.map((key) => key.table.schema)]);
  const reached = new Map(keys.map((key) => [columnKey(key), key]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const { from, to } of foreignKeys.flatMap((fk) => fk.pairs)) {
      const column = columns.get(columnKey(from));
      if (reached.has(columnKey(from)) || !reached.has(columnKey(to)) || !column) continue;
      reached.set(columnKey(from), column);
      grew = true;
    }
  }
  const changing = new Set([...reached].filter(([, column]) => !isSignedBigint(column)).map(([key]) => key));
  const touching = foreignKeys.filter((fk) =>
    fk.pairs.some((pair) => changing.has(columnKey(pair.from)) || changing.has(columnKey(pair.to))),
  );
  for (const fk of touching) checkPairs(fk, changing, columns);
  const primaryKeys = new Set(keys.map(columnKey));
  const referencing = [...changing]
    .filter((key) => !primaryKeys.has(key))
    .map((key) => reached.get(key) as MysqlColumn)
    .sort((a, b) => byName(a.table, b.table) || a.column.localeCompare(b.column));
  const primary = keys.filter((key) => changing.has(columnKey(key)));
  return { columns: [...primary, ...referencing].map(toWiden), foreignKeys: touching };
}

/** After the change both sides of every pair must have the same type, as InnoDB requires. */
function checkPairs(fk: MysqlForeignKey, changing: ReadonlySet<string>, columns: ReadonlyMap<string, MysqlColumn>) {
  for (const { from, to } of fk.pairs) {
    const target = columns.get(columnKey(to));
    if (!changing.has(columnKey(from)) || changing.has(columnKey(to)) || !target || isSignedBigint(target)) continue;
    throw new SheafError(
      'UNSUPPORTED_KEY',
      `${display(from.table, 'mysql')}.${displayPart(from.column, 'mysql')} becomes bigint but its foreign key ${displayPart(fk.name, 'mysql')} references ` +
        `${display(to.table, 'mysql')}.${displayPart(to.column, 'mysql')} (${target.dataType}), which is not migrated: migrate ${display(to.table, 'mysql')} too, or drop the foreign key`,
      { details: { foreignKey: fk.name, table: display(from.table, 'mysql'), references: display(to.table, 'mysql') } },
    );
  }
}

/** The rows of each constraint together, in the order they came (the queries order them by key position). */
export function byConstraint<R extends ForeignKeyColumnRow>(rows: readonly R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.schema_name, row.table_name, row.constraint_name]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()];
}

function toForeignKey(rows: readonly ForeignKeyRow[]): MysqlForeignKey {
  const first = rows[0] as ForeignKeyRow;
  const table = { schema: first.schema_name, name: first.table_name };
  const references = { schema: first.ref_schema, name: first.ref_table };
  const q = mysqlDialect.quoteIdent;
  const list = (names: readonly string[]) => names.map(q).join(', ');
  const columns = rows.map((row) => row.column_name);
  const referencedColumns = rows.map((row) => row.ref_column);
  // Unqualified when both tables share a database: the statement then runs in any database of that name.
  const target =
    references.schema === table.schema ? q(references.name) : `${q(references.schema)}.${q(references.name)}`;
  return {
    name: first.constraint_name,
    table,
    columns,
    references,
    referencedColumns,
    definition: `foreign key (${list(columns)}) references ${target} (${list(referencedColumns)}) on delete ${first.delete_rule.toLowerCase()} on update ${first.update_rule.toLowerCase()}`,
    pairs: rows.map((row) => ({
      from: { table, column: row.column_name },
      to: { table: references, column: row.ref_column },
    })),
  };
}
