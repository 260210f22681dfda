import { type Database, executorOf, mysqlDialect, type SqlExecutor } from '@sheaf/core';
import type { TableToMigrate } from '../model.js';
import { display, displayPart } from '../names.js';
import { columnKey, type MysqlColumn, toWiden } from './mysql-columns.js';
import { mysqlGenerator } from './mysql-sequences.js';
import type { MysqlTable } from './mysql-tables.js';

/** What a table's primary key allows: migrate it, or leave it out and why. */
export type MysqlKeyVerdict =
  | { readonly kind: 'migrate'; readonly table: TableToMigrate; readonly key: MysqlColumn }
  /** `unsupported` refuses `--table`; `done` (a sheaf trigger fills the key already) is skipped either way. */
  | { readonly kind: 'unsupported'; readonly reason: string }
  /** `key` is set when it still has AUTO_INCREMENT, which a plan may drop. */
  | { readonly kind: 'done'; readonly reason: string; readonly key?: MysqlColumn };

const integerTypes = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'bigint']);

const primaryKeysSql = `
  select table_name, column_name
  from information_schema.key_column_usage
  where table_schema = database() and constraint_name = 'PRIMARY'
  order by table_name, ordinal_position`;

// A BEFORE INSERT trigger that calls a sheaf routine: what sheafTriggerSql renders, by any name.
const sheafTriggersSql = `
  select event_object_table as table_name, trigger_name
  from information_schema.triggers
  where trigger_schema = database() and event_manipulation = 'INSERT' and action_timing = 'BEFORE'
    and action_statement regexp 'sheaf_[a-z_]+[[:space:]]*[(]'`;

/** The key columns of every table of the current database, and the sheaf trigger of each table that has one. */
export async function readMysqlKeys(
  executor: SqlExecutor,
): Promise<{ keys: Map<string, string[]>; sheafTriggers: Map<string, string> }> {
  const keys = new Map<string, string[]>();
  for (const row of await executor.query<{ table_name: string; column_name: string }>(primaryKeysSql)) {
    keys.set(row.table_name, [...(keys.get(row.table_name) ?? []), row.column_name]);
  }
  return { keys, sheafTriggers: await mysqlSheafTriggers(executor) };
}

/**
 * MySQL/MariaDB: the tables of the current database that have a sheaf trigger (a BEFORE INSERT
 * trigger calling a `sheaf_` routine, by any name), each with its trigger's name. Migrations skip
 * these tables as keyed by sheaf already.
 *
 * @example
 * const triggers = await mysqlSheafTriggers(pool); // Map { 'orders' => 'orders_sheaf_id' }
 */
export async function mysqlSheafTriggers(db: Database): Promise<Map<string, string>> {
  const rows = await executorOf(db, 'mysqlSheafTriggers').query<{ table_name: string; trigger_name: string }>(
    sheafTriggersSql,
  );
  return new Map(rows.map((row) => [row.table_name, row.trigger_name]));
}

/** Judges one table's primary key; for a key sheaf can take, reads its largest value and the row count. */
export async function inspectMysqlKey(
  executor: SqlExecutor,
  table: MysqlTable,
  keyColumns: readonly string[] | undefined,
  columns: ReadonlyMap<string, MysqlColumn>,
  sheafTrigger: string | undefined,
): Promise<MysqlKeyVerdict> {
  const name = display(table, 'mysql');
  const part = (identifier: string) => displayPart(identifier, 'mysql');
  if (!keyColumns) return { kind: 'unsupported', reason: `table ${name} has no primary key` };
  if (keyColumns.length > 1) {
    return {
      kind: 'unsupported',
      reason: `table ${name} has a composite primary key (${keyColumns.map(part).join(', ')}): sheaf migrates single-column integer keys only`,
    };
  }
  const column = keyColumns[0] ?? '';
  const key = columns.get(columnKey({ table, column }));
  if (!key || !integerTypes.has(key.baseType) || key.generated) {
    const type = key ? `${key.generated ? 'generated ' : ''}${key.dataType}` : 'unknown';
    return {
      kind: 'unsupported',
      reason: `table ${name} has a primary key ${part(column)} of type ${type}: sheaf migrates integer keys only (tinyint, smallint, mediumint, int, bigint)`,
    };
  }
  if (sheafTrigger) {
    const reason = `table ${name}: trigger ${part(sheafTrigger)} already gives ${part(column)} sheaf ids`;
    return key.attributes?.autoIncrement
      ? { kind: 'done', reason, key: withCounter(key, table) }
      : { kind: 'done', reason };
  }
  const q = mysqlDialect.quoteIdent;
  const [stats] = await executor.query<{ max_id: string | null; row_count: string }>(
    `select cast(max(${q(column)}) as char) as max_id, count(*) as row_count from ${q(table.name)}`,
  );
  const migrate: TableToMigrate = {
    table: { schema: table.schema, name: table.name },
    primaryKey: toWiden(withCounter(key, table)),
    generator: mysqlGenerator(key),
    maxId: stats?.max_id == null ? null : BigInt(stats.max_id),
    rowCount: BigInt(stats?.row_count ?? 0),
  };
  return { kind: 'migrate', table: migrate, key };
}

/** The key with its table's AUTO_INCREMENT counter, when it has AUTO_INCREMENT and the server reports one. */
function withCounter(key: MysqlColumn, table: MysqlTable): MysqlColumn {
  const attributes = key.attributes;
  if (!attributes?.autoIncrement || table.autoIncrement === null) return key;
  return { ...key, attributes: { ...attributes, counter: table.autoIncrement } };
}
