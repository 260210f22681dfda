import { SheafError, type SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableSelection } from '../model.js';
import { byName, display } from '../names.js';
import { nearest } from '../nearest.js';

/** A table as the catalog knows it: its name and its oid (as text, for parameters). */
export interface CatalogTable extends QualifiedName {
  readonly oid: string;
  /** A partition: the top of its partition tree, which alone is migrated. */
  readonly root?: QualifiedName;
}

// sheaf's own schema is never migrated; partitions follow their parent's ALTER, and are listed only
// to say so when a --table names one.
const tablesSql = `
  select c.oid::text as oid, n.nspname as schema, c.relname as name,
    case when c.relispartition then rn.nspname end as root_schema,
    case when c.relispartition then r.relname end as root_name
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  left join pg_catalog.pg_class r on c.relispartition and r.oid = pg_catalog.pg_partition_root(c.oid)
  left join pg_catalog.pg_namespace rn on rn.oid = r.relnamespace
  where c.relkind in ('r', 'p')
    and n.nspname not in ('pg_catalog', 'information_schema', 'sheaf')
    and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
  order by n.nspname, c.relname`;

interface TableRow extends QualifiedName {
  readonly oid: string;
  readonly root_schema: string | null;
  readonly root_name: string | null;
}

/** Every user table of the database, partitions included (with their root), sorted by schema and name. */
export async function listPostgresTables(session: SqlExecutor): Promise<CatalogTable[]> {
  const rows = await session.query<TableRow>(tablesSql);
  return rows.map(({ oid, schema, name, root_schema, root_name }) =>
    root_schema === null || root_name === null
      ? { oid, schema, name }
      : { oid, schema, name, root: { schema: root_schema, name: root_name } },
  );
}

/**
 * The tables a selection names: `--all` (every table but partitions), or each `--table` as typed —
 * `schema.name`, or a bare name looked up along the search path like the server does. Throws
 * UNKNOWN_TABLE with the nearest names, INVALID_ARGUMENT naming the parent for a partition.
 */
export function selectTables(
  tables: readonly CatalogTable[],
  selection: TableSelection,
  searchPath: readonly string[],
): CatalogTable[] {
  if ('all' in selection) return tables.filter((table) => !table.root);
  const chosen = new Map<string, CatalogTable>();
  for (const typed of selection.tables) {
    const table = findTable(tables, typed, searchPath);
    if (table.root) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `${display(table)} is a partition of ${display(table.root)}: name ${display(table.root)} instead (its partitions follow its changes)`,
        { details: { table: typed, partitionOf: display(table.root) } },
      );
    }
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
    tables.filter((t) => !t.root).map((t) => display(t)),
  );
  const where = typed.includes('.') ? '' : ` on the search path (${searchPath.join(', ') || 'empty'})`;
  throw new SheafError(
    'UNKNOWN_TABLE',
    `no table "${typed}"${where}; nearest: ${near.length > 0 ? near.join(', ') : 'none (the database has no tables)'}`,
    { details: { table: typed, nearest: near } },
  );
}
