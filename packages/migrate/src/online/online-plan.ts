import { isSheafError, SheafError, type SqlExecutor } from '@sheaf/core';
import type { Inspection, QualifiedName, TableToMigrate } from '../model.js';
import { display, displayPart, qualified, shadowColumn } from './online-names.js';

/** A widened column and its bigint shadow. */
export interface OnlineColumn {
  readonly column: string;
  readonly shadow: string;
  readonly attnum: number;
  readonly notNull: boolean;
  /** The old column's default (a referencing column's; the key's is replaced by sheaf's). */
  readonly default: string | null;
  readonly comment: string | null;
}

/** One table with widened columns: a migrated table, or one whose foreign keys reference one. */
export interface OnlineTable {
  readonly table: QualifiedName;
  readonly oid: number;
  readonly columns: readonly OnlineColumn[];
  /** The table's own primary key, which the backfill walks in batches (any type, any width). */
  readonly keyColumns: readonly { readonly name: string; readonly type: string }[];
  /** Set when this table's key moves onto sheaf ids. */
  readonly migrated: TableToMigrate | undefined;
}

interface CatalogRow {
  oid: number;
  relkind: string;
  /** A partition, or a table inheriting from or inherited by another: ALTER TABLE would reach beyond it. */
  inherits: boolean;
  columns: { name: string; attnum: number; not_null: boolean; default: string | null; comment: string | null }[];
  key: { name: string; type: string }[] | null;
}

// One round trip per table: its oid and kind, every column, and its primary key's columns in order.
const catalogSql = `
  select c.oid::int as oid, c.relkind::text as relkind,
    c.relispartition or exists (select 1 from pg_inherits i where c.oid in (i.inhrelid, i.inhparent)) as inherits,
    (select json_agg(json_build_object('name', a.attname, 'attnum', a.attnum, 'not_null', a.attnotnull,
        'default', pg_get_expr(d.adbin, d.adrelid), 'comment', col_description(c.oid, a.attnum)))
     from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
    (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
        order by k.ord)
     from pg_index i cross join unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
     join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
     where i.indrelid = c.oid and i.indisprimary) as key
  from pg_class c where c.oid = to_regclass($1)`;

/**
 * Reads, for every table with widened columns, what the online phases need; primary-key tables
 * first. A migrated table whose key is `bigint` already (`bigserial`, a bigint identity) comes last
 * with no columns: it has nothing to copy, and the swap only moves its default onto sheaf ids.
 */
export async function readPlan(executor: SqlExecutor, inspection: Inspection): Promise<OnlineTable[]> {
  const plan: OnlineTable[] = [];
  const refusals: SheafError[] = [];
  const seen: QualifiedName[] = [];
  // Every table is read before any is refused, so one run names them all.
  const read = async (...args: Parameters<typeof readTable>) => {
    seen.push(args[1]);
    try {
      plan.push(await readTable(...args));
    } catch (error) {
      if (!isSheafError(error, 'UNSUPPORTED_KEY')) throw error;
      refusals.push(error);
    }
  };
  for (const column of inspection.columns) {
    if (seen.some((table) => sameTable(table, column.table))) continue;
    const names = inspection.columns.filter((c) => sameTable(c.table, column.table)).map((c) => c.column);
    const migrated = inspection.tables.find((t) => sameTable(t.table, column.table));
    await read(executor, column.table, names, migrated);
  }
  for (const migrated of inspection.tables) {
    if (seen.some((table) => sameTable(table, migrated.table))) continue;
    await read(executor, migrated.table, [], migrated);
  }
  if (refusals.length > 1) {
    const tables = refusals.map((error) => error.details?.table);
    throw new SheafError('UNSUPPORTED_KEY', refusals.map((error) => error.message.replace(/^sheaf: /, '')).join('; '), {
      details: { tables },
    });
  }
  if (refusals[0]) throw refusals[0];
  return plan;
}

async function readTable(
  executor: SqlExecutor,
  table: QualifiedName,
  names: readonly string[],
  migrated: TableToMigrate | undefined,
): Promise<OnlineTable> {
  const [row] = await executor.query<CatalogRow>(catalogSql, [qualified(table)]);
  if (!row) throw new SheafError('UNKNOWN_TABLE', `no table ${display(table)}: it was dropped or renamed`);
  if (names.length > 0 && row.relkind === 'p') {
    const columns = names.map((name) => displayPart(name)).join(', ');
    throw unsupported(
      table,
      `is partitioned and its ${columns} must become bigint: --online cannot copy a partitioned table ` +
        `(PostgreSQL builds no index on one concurrently and adds no NOT VALID foreign key to one, so the swap would ` +
        `scan every partition under its locks); migrate without --online (--apply widens ${display(table)} at the parent), ` +
        `or leave out the tables it references`,
    );
  }
  if (names.length > 0 && (row.relkind !== 'r' || row.inherits)) {
    throw unsupported(
      table,
      'is a partition, in an inheritance tree or not a table: --online copies plain tables only',
    );
  }
  if (names.length > 0 && !row.key)
    throw unsupported(table, 'has no primary key to backfill by: migrate it without --online');
  const columns = names.map((name) => {
    const found = row.columns.find((c) => c.name === name);
    if (!found) throw new SheafError('UNKNOWN_TABLE', `no column ${name} in ${display(table)}`);
    const pk = migrated?.primaryKey.column === name;
    return {
      column: name,
      shadow: shadowColumn(name, found.attnum),
      attnum: found.attnum,
      notNull: found.not_null,
      default: pk ? null : found.default,
      comment: found.comment,
    };
  });
  return { table, oid: row.oid, columns, keyColumns: row.key ?? [], migrated };
}

/** Whether two names are the same table. */
export function sameTable(a: QualifiedName, b: QualifiedName): boolean {
  return a.schema === b.schema && a.name === b.name;
}

function unsupported(table: QualifiedName, why: string): SheafError {
  return new SheafError('UNSUPPORTED_KEY', `table ${display(table)} ${why}`, { details: { table: display(table) } });
}
