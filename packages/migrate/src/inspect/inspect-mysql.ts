import { SheafError, type SqlExecutor } from '@sheaf/core';
import type { Inspection, SkippedTable, TableSelection, TableToMigrate } from '../model.js';
import { display } from '../names.js';
import { checkFloor, type KeyHigh } from './floor-check.js';
import { type MysqlColumn, readMysqlColumns, toWiden } from './mysql-columns.js';
import { mysqlDependentIndexes, mysqlDependentTriggers, mysqlDependentViews } from './mysql-dependents.js';
import { mysqlKeyClosure } from './mysql-foreign-keys.js';
import { inspectMysqlKey, readMysqlKeys } from './mysql-keys.js';
import { checkOrphans, checkTriggerNames, mysqlSheafFloor } from './mysql-preflight.js';
import { mysqlSharedKeys } from './mysql-shared-keys.js';
import { currentDatabase, listMysqlTables, selectMysqlTables } from './mysql-tables.js';
import { mysqlWarnings } from './mysql-warnings.js';

/**
 * Reads what `sheaf migrate` needs from information_schema of the current database: the selected
 * tables' integer keys, AUTO_INCREMENT counters, largest keys and row counts, every column that
 * references them (composite and self-referencing foreign keys, chains), the foreign keys, views,
 * triggers and indexes around those columns, and the first id sheaf issues now. MySQL commits each
 * DDL statement, so everything that could stop the migration halfway is checked here, before the
 * first one: NOT_INSTALLED, UNKNOWN_TABLE, UNSUPPORTED_KEY (a `--table` whose key sheaf cannot take,
 * or a foreign key onto a column that would stay narrower), KEYS_ABOVE_FLOOR (keys or counters at or
 * above the floor), NAME_TAKEN (sheaf's trigger name) and VERIFY_FAILED (rows that break a foreign
 * key to be re-created).
 *
 * @example
 * const inspection = await inspectMysql(executor, { tables: ['orders'] });
 */
export async function inspectMysql(executor: SqlExecutor, selection: TableSelection): Promise<Inspection> {
  // One connection: database() and the session's view of the catalog stay the same throughout.
  return executor.session(async (session) => {
    const database = await currentDatabase(session);
    const { floor, at } = await mysqlSheafFloor(session);
    const selected = selectMysqlTables(await listMysqlTables(session), selection, database);
    const { tables, keys, skipped, highs } = await judgeKeys(session, selected, selection, database);
    checkFloor(highs, floor, at, 'mysql');
    await checkTriggerNames(session, tables);
    const closure = await mysqlKeyClosure(session, keys);
    await checkOrphans(session, closure.foreignKeys);
    const dependents = [
      ...(await mysqlDependentViews(session, closure.columns)),
      ...(await mysqlDependentTriggers(session, closure.columns)),
      ...(await mysqlDependentIndexes(session, closure.columns)),
    ];
    return {
      dialect: 'mysql',
      tables,
      columns: closure.columns,
      foreignKeys: closure.foreignKeys.map(({ pairs: _, ...fk }) => fk),
      dependents,
      sheafFloor: floor,
      skipped,
      warnings: await mysqlWarnings(session, { tables, columns: closure.columns }),
    };
  });
}

async function judgeKeys(
  session: SqlExecutor,
  selected: Awaited<ReturnType<typeof listMysqlTables>>,
  selection: TableSelection,
  database: string,
) {
  const { keys: keyColumns, sheafTriggers } = await readMysqlKeys(session);
  const columns = await readMysqlColumns(session, [database]);
  const tables: TableToMigrate[] = [];
  const keys: MysqlColumn[] = [];
  const skipped: SkippedTable[] = [];
  const highs: KeyHigh[] = [];
  const sharedKeys = await mysqlSharedKeys(session, keyColumns);
  for (const table of selected) {
    const verdict = await inspectMysqlKey(
      session,
      table,
      keyColumns.get(table.name),
      columns,
      sheafTriggers.get(table.name),
    );
    if (verdict.kind === 'unsupported' && !('all' in selection)) {
      throw new SheafError('UNSUPPORTED_KEY', verdict.reason, { details: { table: display(table, 'mysql') } });
    }
    if (verdict.kind !== 'migrate') {
      const entry = { table: { schema: table.schema, name: table.name }, reason: verdict.reason };
      const key = verdict.kind === 'done' ? verdict.key : undefined;
      skipped.push(key ? { ...entry, autoIncrementKey: toWiden(key) } : entry);
      continue;
    }
    const shared = sharedKeys.get(table.name);
    if (shared !== undefined) {
      skipped.push({ table: { schema: table.schema, name: table.name }, reason: shared });
      continue;
    }
    tables.push(verdict.table);
    keys.push(verdict.key);
    highs.push({ table: verdict.table.table, high: verdict.table.maxId, what: 'holds keys up to' });
    // The counter is the next value it hands out; one at or above the floor would collide as surely.
    if (verdict.table.generator.kind === 'auto_increment' && table.autoIncrement !== null) {
      highs.push({ table: verdict.table.table, high: table.autoIncrement, what: 'has its AUTO_INCREMENT counter at' });
    }
  }
  return { tables, keys, skipped, highs };
}
