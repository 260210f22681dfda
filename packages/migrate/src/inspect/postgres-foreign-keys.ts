import type { SqlExecutor } from '@sheaf/core';
import type { ColumnToWiden, ForeignKey } from '../model.js';
import { byName } from '../names.js';

/** A column by table oid and attribute number: what pg_depend and pg_constraint speak in. */
export interface ColumnRef {
  readonly oid: string;
  readonly attnum: number;
}

/** A key column to start from: a migrated primary key. */
export interface KeyColumn extends ColumnRef {
  readonly column: ColumnToWiden;
}

/** The columns that change type, the foreign keys that touch them, and the same columns as refs. */
export interface KeyClosure {
  readonly columns: ColumnToWiden[];
  readonly foreignKeys: ForeignKey[];
  readonly widened: ColumnRef[];
}

interface ForeignKeyRow {
  oid: string;
  name: string;
  schema: string;
  table: string;
  rel: string;
  fschema: string;
  ftable: string;
  frel: string;
  definition: string;
  column: string;
  fcolumn: string;
  attnum: number;
  fattnum: number;
  type: string;
  narrow: boolean;
  nullable: boolean;
}

// One row per column pair of every foreign key, in the constraint's column order.
const foreignKeysSql = `
  select con.oid::text as oid, con.conname as name, n.nspname as schema, c.relname as table, con.conrelid::text as rel,
    fn.nspname as fschema, fc.relname as ftable, con.confrelid::text as frel,
    pg_get_constraintdef(con.oid) as definition, a.attname as column, fa.attname as fcolumn,
    k.attnum, k.fattnum, format_type(a.atttypid, a.atttypmod) as type,
    a.atttypid in (21, 23) as narrow, not a.attnotnull as nullable
  from pg_constraint con
  cross join lateral unnest(con.conkey, con.confkey) with ordinality as k(attnum, fattnum, ord)
  join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
  join pg_class fc on fc.oid = con.confrelid join pg_namespace fn on fn.oid = fc.relnamespace
  join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
  join pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = k.fattnum
  where con.contype = 'f' and n.nspname <> 'sheaf'
  order by n.nspname, c.relname, con.conname, k.ord`;

const refKey = (oid: string, attnum: number) => `${oid}:${attnum}`;

/**
 * Follows foreign keys from the migrated keys to every column that references them — through
 * composite keys, self-references and chains (a column referencing a referencing column) — and
 * returns those that must become bigint with the constraints to drop and re-create around the change.
 */
export async function foreignKeyClosure(session: SqlExecutor, keys: readonly KeyColumn[]): Promise<KeyClosure> {
  const rows = await session.query<ForeignKeyRow>(foreignKeysSql);
  const reached = new Map<string, ColumnToWiden>(keys.map((key) => [refKey(key.oid, key.attnum), key.column]));
  const narrow = new Set(keys.filter((key) => key.column.dataType !== 'bigint').map((k) => refKey(k.oid, k.attnum)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      const from = refKey(row.rel, row.attnum);
      if (reached.has(from) || !reached.has(refKey(row.frel, row.fattnum))) continue;
      reached.set(from, {
        table: { schema: row.schema, name: row.table },
        column: row.column,
        dataType: row.type,
        nullable: row.nullable,
      });
      if (row.narrow) narrow.add(from);
      grew = true;
    }
  }
  const primary = keys.filter((key) => narrow.has(refKey(key.oid, key.attnum))).map((key) => key.column);
  const primaryKeys = new Set(keys.map((key) => refKey(key.oid, key.attnum)));
  const referencing = [...narrow]
    .filter((key) => !primaryKeys.has(key))
    .map((key) => reached.get(key)!)
    .sort((a, b) => byName(a.table, b.table) || a.column.localeCompare(b.column));
  return {
    columns: [...primary, ...referencing],
    foreignKeys: touching(rows, narrow),
    widened: [...narrow].map((key) => {
      const [oid = '', attnum = '0'] = key.split(':');
      return { oid, attnum: Number(attnum) };
    }),
  };
}

/** Each foreign key with a column pair on either side among the changing columns, once. */
function touching(rows: readonly ForeignKeyRow[], narrow: ReadonlySet<string>): ForeignKey[] {
  const byOid = new Map<string, ForeignKeyRow[]>();
  for (const row of rows) byOid.set(row.oid, [...(byOid.get(row.oid) ?? []), row]);
  return [...byOid.values()]
    .filter((pairs) => pairs.some((p) => narrow.has(refKey(p.rel, p.attnum)) || narrow.has(refKey(p.frel, p.fattnum))))
    .map((pairs) => {
      const first = pairs[0]!;
      return {
        name: first.name,
        table: { schema: first.schema, name: first.table },
        columns: pairs.map((pair) => pair.column),
        references: { schema: first.fschema, name: first.ftable },
        referencedColumns: pairs.map((pair) => pair.fcolumn),
        definition: first.definition,
      };
    });
}
