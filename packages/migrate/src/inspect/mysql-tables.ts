import { SheafError, type SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableSelection } from '../model.js';
import { nearest } from '../nearest.js';

/** A base table of the current database, with the next value its AUTO_INCREMENT counter hands out. */
export interface MysqlTable extends QualifiedName {
  readonly autoIncrement: bigint | null;
}

// sheaf's own tables (sql/mysql, the installer's version table, the migration journal) are never
// migrated: the `sheaf_` prefix is sheaf's namespace in a MySQL database, so a table sheaf adds later
// is left out without a list here to keep in step with the installer's.
const isSheafTable = (name: string) => name.startsWith('sheaf_');

// MariaDB reads auto_increment live; MySQL 8 may serve it from a cache (information_schema_stats_expiry).
const tablesSql = `
  select table_schema as schema_name, table_name, auto_increment
  from information_schema.tables
  where table_schema = database() and table_type = 'BASE TABLE'
  order by table_name`;

/** The current database's name; a connection without one cannot be migrated. */
export async function currentDatabase(executor: SqlExecutor): Promise<string> {
  const [row] = await executor.query<{ name: string | null }>('select database() as name');
  if (!row?.name) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      'the connection has no current database: name it in the URL (mysql://…/app)',
    );
  }
  return row.name;
}

/** Every base table of the current database except sheaf's own, by name. */
export async function listMysqlTables(executor: SqlExecutor): Promise<MysqlTable[]> {
  const rows = await executor.query<{ schema_name: string; table_name: string; auto_increment: string | null }>(
    tablesSql,
  );
  return rows
    .filter((row) => !isSheafTable(row.table_name))
    .map((row) => ({
      schema: row.schema_name,
      name: row.table_name,
      autoIncrement: row.auto_increment === null ? null : BigInt(row.auto_increment),
    }));
}

/**
 * The tables a selection names: `--all`, or each `--table` as typed, `name` or `database.name` of
 * the current database, case-sensitive. Throws UNKNOWN_TABLE listing the nearest names.
 */
export function selectMysqlTables(
  tables: readonly MysqlTable[],
  selection: TableSelection,
  database: string,
): MysqlTable[] {
  if ('all' in selection) return [...tables];
  const chosen = new Map<string, MysqlTable>();
  for (const typed of selection.tables) {
    // A name may itself contain dots: the whole text as a name wins over `database.name`.
    const bare = typed.startsWith(`${database}.`) ? typed.slice(database.length + 1) : undefined;
    const table = tables.find((t) => t.name === typed) ?? tables.find((t) => t.name === bare);
    if (!table) throw unknownTable(typed, tables, database);
    chosen.set(table.name, table);
  }
  return [...chosen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function unknownTable(typed: string, tables: readonly MysqlTable[], database: string): SheafError {
  const near = nearest(
    typed,
    tables.map((table) => table.name),
  );
  const list = near.length > 0 ? near.join(', ') : 'none';
  const more = tables.length > near.length ? ', …' : '';
  return new SheafError(
    'UNKNOWN_TABLE',
    `no table "${typed}" in database ${database} (tables there, nearest first: ${list}${more})`,
    { details: { table: typed, database, nearest: near } },
  );
}
