import { SheafError, type SqlExecutor } from '@sheaf/core';
import { display, displayPart, indexCopyName, q, qualified } from './online-names.js';
import type { OnlineTable } from './online-plan.js';
import { renamePredicateColumns } from './online-predicate.js';

/** An index on widened columns, and the copy on their shadows that replaces it at the swap. */
export interface IndexCopy {
  readonly name: string;
  readonly copy: string;
  /** The statement building the copy without blocking writes. */
  readonly create: string;
  /** The primary key or unique constraint the index backs, re-attached to the copy at the swap. */
  readonly constraint: { readonly name: string; readonly kind: 'p' | 'u'; readonly deferrable: string } | null;
}

interface IndexRow {
  oid: number;
  name: string;
  unique: boolean;
  method: string;
  key_count: number;
  nulls_not_distinct: boolean;
  options: string | null;
  predicate: string | null;
  con_name: string | null;
  con_type: string | null;
  deferrable: string;
  columns: { attnum: number; name: string | null; opclass: string | null; collation: string | null; option: number }[];
  expression_columns: number[];
  predicate_columns: number[];
}

// Every index of the table that uses a widened column, with what it takes to rebuild it on other
// columns: key and INCLUDE columns, non-default operator classes and collations, sort order, storage
// options and predicate, whose columns are read from the node trees (a whole-row reference is 0).
// indnullsnotdistinct exists from PostgreSQL 15 on, hence to_jsonb.
const indexesSql = `
  select i.indexrelid::int as oid, ic.relname as name, i.indisunique as unique, am.amname as method,
    i.indnkeyatts::int as key_count, coalesce((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false) as nulls_not_distinct,
    array_to_string(ic.reloptions, ', ') as options, pg_get_expr(i.indpred, i.indrelid) as predicate,
    con.conname as con_name, con.contype::text as con_type,
    case when con.condeferred then 'deferrable initially deferred' when con.condeferrable then 'deferrable' else '' end as deferrable,
    (select json_agg(json_build_object('attnum', k.attnum, 'name', a.attname,
        'opclass', case when oc.opcdefault then null else quote_ident(ns.nspname) || '.' || quote_ident(oc.opcname) end,
        'collation', case when k.coll <> 0 and k.coll <> a.attcollation then k.coll::regcollation::text end,
        'option', coalesce(k.opt, 0)) order by k.ord)
     from unnest(i.indkey::int2[], i.indclass::oid[], i.indcollation::oid[], i.indoption::int2[])
       with ordinality k(attnum, opclass, coll, opt, ord)
     left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
     left join pg_opclass oc on oc.oid = k.opclass left join pg_namespace ns on ns.oid = oc.opcnamespace) as columns,
    array(select m[1]::int from regexp_matches(coalesce(i.indexprs::text, ''), ':varattno (\\d+)', 'g') m) as expression_columns,
    array(select m[1]::int from regexp_matches(coalesce(i.indpred::text, ''), ':varattno (\\d+)', 'g') m) as predicate_columns
  from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
  left join pg_constraint con on con.conindid = i.indexrelid and con.conrelid = i.indrelid and con.contype in ('p', 'u', 'x')
  where i.indrelid = $1 and ic.relname not like 'sheaf\\_online\\_index\\_%'
    -- Key and INCLUDE columns are in indkey; columns used only by expressions or the predicate in pg_depend.
    and (i.indkey::int2[]::int[] && $2::int[] or exists (select 1 from pg_depend d
      where d.classid = 'pg_class'::regclass and d.objid = i.indexrelid and d.refclassid = 'pg_class'::regclass
        and d.refobjid = i.indrelid and d.refobjsubid = any($2::int[])))
  order by i.indisprimary desc, ic.relname`;

/**
 * The table's indexes on widened columns. One it cannot rebuild is refused (UNSUPPORTED_KEY): an
 * expression column, an expression or whole-row reference over a widened column, an exclusion
 * constraint. Called before the first table is prepared, so a refusal changes nothing.
 */
export async function readIndexCopies(executor: SqlExecutor, entry: OnlineTable): Promise<IndexCopy[]> {
  const rows = await executor.query<IndexRow>(indexesSql, [entry.oid, entry.columns.map((c) => c.attnum)]);
  return rows.map((row) => ({
    name: row.name,
    copy: indexCopyName(row.oid),
    create: createCopySql(entry, row),
    constraint:
      row.con_type === 'p' || row.con_type === 'u'
        ? { name: row.con_name ?? row.name, kind: row.con_type, deferrable: row.deferrable }
        : null,
  }));
}

function createCopySql(entry: OnlineTable, row: IndexRow): string {
  const widened = new Map(entry.columns.map((c) => [c.attnum, c]));
  const why =
    row.con_type === 'x'
      ? 'backs an exclusion constraint on a widened column'
      : row.expression_columns.some((attnum) => attnum === 0 || widened.has(attnum))
        ? 'has an expression over a widened column'
        : row.columns.some((c) => c.attnum === 0)
          ? 'has an expression column besides a widened column'
          : row.predicate_columns.includes(0)
            ? 'reads the whole row in its predicate'
            : undefined;
  if (why) throw unbuildable(entry, row, why);
  // A predicate on a widened column is rebuilt over its shadow: the swap drops the old column.
  const renames = new Map(entry.columns.map((c) => [c.column, c.shadow]));
  const columns = row.columns.map((c, position) => {
    const shadow = widened.get(c.attnum);
    if (position >= row.key_count) return q(shadow?.shadow ?? c.name!);
    // An integer operator class does not apply to bigint: a widened column takes the default one.
    const parts = [
      q(shadow?.shadow ?? c.name!),
      shadow ? null : c.collation && `collate ${c.collation}`,
      shadow ? null : c.opclass,
    ];
    parts.push(sortOrder(c.option));
    return parts.filter(Boolean).join(' ');
  });
  const include = columns.length > row.key_count ? ` include (${columns.slice(row.key_count).join(', ')})` : '';
  return [
    `create ${row.unique ? 'unique ' : ''}index concurrently ${q(indexCopyName(row.oid))} on ${qualified(entry.table)}`,
    ` using ${q(row.method)} (${columns.slice(0, row.key_count).join(', ')})${include}`,
    row.nulls_not_distinct ? ' nulls not distinct' : '',
    row.options ? ` with (${row.options})` : '',
    row.predicate ? ` where ${renamePredicateColumns(row.predicate, renames)}` : '',
  ].join('');
}

function unbuildable(entry: OnlineTable, row: IndexRow, why: string): SheafError {
  return new SheafError(
    'UNSUPPORTED_KEY',
    `index ${displayPart(row.name)} on ${display(entry.table)} ${why}: --online cannot rebuild it on the shadow columns; drop it first or migrate without --online`,
    { details: { table: display(entry.table), index: row.name } },
  );
}

/** indoption bit 1 is DESC, bit 2 NULLS FIRST; each order's own default is left out. */
function sortOrder(option: number): string {
  const desc = (option & 1) !== 0;
  const nullsFirst = (option & 2) !== 0;
  if (desc) return nullsFirst ? 'desc' : 'desc nulls last';
  return nullsFirst ? 'nulls first' : '';
}

/**
 * Builds the copies that do not exist yet, concurrently: writes go on while each is built. A copy
 * left invalid by an interrupted build is dropped and built again.
 */
export async function buildIndexCopies(
  executor: SqlExecutor,
  entry: OnlineTable,
  copies: readonly IndexCopy[],
): Promise<void> {
  for (const index of copies) {
    const name = qualified({ schema: entry.table.schema, name: index.copy });
    const [found] = await executor.query<{ valid: boolean }>(
      'select indisvalid as valid from pg_index where indexrelid = to_regclass($1)',
      [name],
    );
    if (found?.valid) continue;
    if (found) await executor.query(`drop index concurrently if exists ${name}`);
    await executor.query(index.create);
  }
}
