import { SheafError, type SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableSelection } from '../model.js';
import { byName, display } from '../names.js';
import { nearest } from '../nearest.js';

/** A table as the catalog knows it: its name and its oid (as text, for parameters). */
export interface CatalogTable extends QualifiedName {
  readonly oid: string;
}

// sheaf's own schema is never migrated; partitions follow their parent's ALTER.
const tablesSql = `
  select c.oid::text as oid, n.nspname as schema, c.relname as name
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and not c.relispartition
    and n.nspname not in ('pg_catalog', 'information_schema', 'sheaf')
    and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
  order by n.nspname, c.relname`;

/** Every user table of the database, sorted by schema and name. */
export function listPostgresTables(session: SqlExecutor): Promise<CatalogTable[]> {
  return session.query<CatalogTable>(tablesSql);
}

/**
 * The tables a selection names: `--all`, or each `--table` as typed — `schema.name`, or a bare name
 * looked up along the search path like the server does. Throws UNKNOWN_TABLE with the nearest names.
 */
export function selectTables(
  tables: readonly CatalogTable[],
  selection: TableSelection,
  searchPath: readonly string[],
): CatalogTable[] {
  if ('all' in selection) return [...tables];
  const chosen = new Map<string, CatalogTable>();
  for (const typed of selection.tables) {
    const table = findTable(tables, typed, searchPath);
    chosen.set(table.oid, table);
  }
  return [...chosen.values()].sort(byName);
}

function findTable(tables: readonly CatalogTable[], typed: string, searchPath: readonly string[]): CatalogTable {
  const qualified = tables.find((table) => `${table.schema}.${table.name}` === typed);
  if (qualified) return qualified;
  for (const schema of searchPath) {
    const found = tables.find((table) => table.schema === schema && table.name === typed);
    if (found) return found;
  }
  const near = nearest(
    typed,
    tables.map((t) => display(t)),
  );
  const where = typed.includes('.') ? '' : ` on the search path (${searchPath.join(', ') || 'empty'})`;
  throw new SheafError(
    'UNKNOWN_TABLE',
    `no table "${typed}"${where}; nearest: ${near.length > 0 ? near.join(', ') : 'none (the database has no tables)'}`,
    { details: { table: typed, nearest: near } },
  );
}
