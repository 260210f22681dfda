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
  root_schema: string;
  root_table: string;
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

// One row per column pair of every foreign key, in the constraint's column order. A partition's
// copy of a parent's foreign key (conparentid <> 0) goes with the parent's and is left out; a
// partition's column is read at the root of its partition tree (rel, attnum, type), since ALTER TYPE
// there changes every partition and is refused on a partition's inherited column. The constraint
// itself stays on its own table: a partition may hold foreign keys of its own.
const foreignKeysSql = `
  select con.oid::text as oid, con.conname as name, n.nspname as schema, c.relname as table,
    rn.nspname as root_schema, r.relname as root_table, r.oid::text as rel,
    fn.nspname as fschema, fc.relname as ftable, fra.attrelid::text as frel,
    pg_get_constraintdef(con.oid) as definition, a.attname as column, fa.attname as fcolumn,
    ra.attnum, fra.attnum as fattnum, format_type(ra.atttypid, ra.atttypmod) as type,
    ra.atttypid in (21, 23) as narrow, not ra.attnotnull as nullable
  from pg_constraint con
  cross join lateral unnest(con.conkey, con.confkey) with ordinality as k(attnum, fattnum, ord)
  join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
  join pg_class fc on fc.oid = con.confrelid join pg_namespace fn on fn.oid = fc.relnamespace
  join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
  join pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = k.fattnum
  join pg_class r on r.oid = coalesce(pg_partition_root(c.oid), c.oid) join pg_namespace rn on rn.oid = r.relnamespace
  join pg_attribute ra on ra.attrelid = r.oid and ra.attname = a.attname and not ra.attisdropped
  join pg_attribute fra on fra.attrelid = coalesce(pg_partition_root(fc.oid), fc.oid) and fra.attname = fa.attname
    and not fra.attisdropped
  where con.contype = 'f' and con.conparentid = 0 and n.nspname <> 'sheaf'
  order by n.nspname, c.relname, con.conname, k.ord`;

const refKey = (oid: string, attnum: number) => `${oid}:${attnum}`;

/** Every foreign key of the database, read once: {@link foreignKeyClosure} follows it from any keys. */
export type ForeignKeyGraph = readonly ForeignKeyRow[];

/** Reads the foreign keys of every schema but sheaf's, as {@link foreignKeyClosure} follows them. */
export function readForeignKeys(session: SqlExecutor): Promise<ForeignKeyGraph> {
  return session.query<ForeignKeyRow>(foreignKeysSql);
}

/**
 * Follows foreign keys from the migrated keys to every column that references them — through
 * composite keys, self-references and chains (a column referencing a referencing column) — and
 * returns those that must become bigint with the constraints to drop and re-create around the change.
 */
export function foreignKeyClosure(rows: ForeignKeyGraph, keys: readonly KeyColumn[]): KeyClosure {
  const reached = new Map<string, ColumnToWiden>(keys.map((key) => [refKey(key.oid, key.attnum), key.column]));
  const narrow = new Set(keys.filter((key) => key.column.dataType !== 'bigint').map((k) => refKey(k.oid, k.attnum)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      const from = refKey(row.rel, row.attnum);
      if (reached.has(from) || !reached.has(refKey(row.frel, row.fattnum))) continue;
      reached.set(from, {
        table: { schema: row.root_schema, name: row.root_table },
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
