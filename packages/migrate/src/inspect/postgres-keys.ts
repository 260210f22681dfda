import type { SqlExecutor } from '@sheaf/core';
import type { KeyGenerator, QualifiedName, TableToMigrate } from '../model.js';
import { display, qualify } from '../names.js';
import { partitionedKeyReason, partitionKey } from './postgres-partitions.js';
import type { CatalogTable } from './postgres-tables.js';

/** What a table's primary key allows: migrate it, or leave it out and why. */
export type KeyVerdict =
  | {
      readonly kind: 'migrate';
      readonly table: TableToMigrate;
      readonly attnum: number;
      /** The sequence's last value, or null when there is none or it was never used. */
      readonly sequenceLast: bigint | null;
    }
  /** `unsupported` refuses `--table`; `done` (already on sheaf ids) is skipped either way. */
  | { readonly kind: 'unsupported' | 'done'; readonly reason: string };

interface KeyColumn {
  attnum: number;
  column: string;
  type: string;
  integer: boolean;
  nullable: boolean;
  identity: string;
  default_sql: string | null;
}

const keySql = `
  select a.attnum, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
    a.atttypid in (20, 21, 23) as integer, not a.attnotnull as nullable, a.attidentity as identity,
    pg_get_expr(ad.adbin, ad.adrelid) as default_sql
  from pg_constraint con
  join pg_attribute a on a.attrelid = con.conrelid and a.attnum = any(con.conkey)
  left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
  where con.conrelid = $1::oid and con.contype = 'p'
  order by array_position(con.conkey, a.attnum)`;

/** Reads a table's primary key, how it is generated, its largest value and its row count. */
export async function inspectKey(session: SqlExecutor, table: CatalogTable): Promise<KeyVerdict> {
  const keys = await session.query<KeyColumn>(keySql, [table.oid]);
  const [key] = keys;
  const name = display(table);
  if (!key) return { kind: 'unsupported', reason: `table ${name} has no primary key` };
  const partition = await partitionKey(session, table);
  if (keys.length > 1) {
    const columns = keys.map((column) => column.column).join(', ');
    // PostgreSQL makes a partitioned table's primary key include its partition key.
    const why = partition ? `, as a table partitioned by ${partition.definition} must` : '';
    return {
      kind: 'unsupported',
      reason: `table ${name} has a composite primary key (${columns})${why}: sheaf migrates single-column integer keys only`,
    };
  }
  if (!key.integer) {
    return {
      kind: 'unsupported',
      reason: `table ${name} has a primary key ${key.column} of type ${key.type}: sheaf migrates integer keys only (smallint, integer, bigint)`,
    };
  }
  if (key.default_sql?.includes('sheaf.next_id(')) {
    return { kind: 'done', reason: `table ${name}: ${key.column} already defaults to sheaf.next_id()` };
  }
  if (partition) return { kind: 'unsupported', reason: partitionedKeyReason(table, key.column, partition) };
  return describeKey(session, table, key);
}

async function describeKey(session: SqlExecutor, table: CatalogTable, key: KeyColumn): Promise<KeyVerdict> {
  const generator = await keyGenerator(session, table, key);
  const [stats] = await session.query<{ max_id: string | null; rows: string }>(
    `select max(${session.dialect.quoteIdent(key.column)})::text as max_id, count(*)::text as rows
     from ${qualify(session.dialect, table)}`,
  );
  const sequenceLast = 'sequence' in generator ? await lastValue(session, generator.sequence) : null;
  return {
    kind: 'migrate',
    attnum: key.attnum,
    sequenceLast,
    table: {
      table: { schema: table.schema, name: table.name },
      primaryKey: {
        table: { schema: table.schema, name: table.name },
        column: key.column,
        dataType: key.type,
        nullable: key.nullable,
      },
      generator,
      maxId: stats?.max_id == null ? null : BigInt(stats.max_id),
      rowCount: BigInt(stats?.rows ?? 0),
    },
  };
}

// Identity sequences hang off the column ('i'); serial and nextval defaults off the default expression.
const identitySql = `
  select sn.nspname as schema, s.relname as name
  from pg_depend d join pg_class s on s.oid = d.objid join pg_namespace sn on sn.oid = s.relnamespace
  where d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass
    and d.refobjid = $1::oid and d.refobjsubid = $2 and d.deptype = 'i' and s.relkind = 'S'`;

const defaultSequenceSql = `
  select sn.nspname as schema, s.relname as name,
    exists (select 1 from pg_depend o where o.classid = 'pg_class'::regclass and o.objid = s.oid
            and o.refobjid = $1::oid and o.refobjsubid = $2 and o.deptype = 'a')
    and not exists (select 1 from pg_depend u where u.classid = 'pg_attrdef'::regclass
            and u.refobjid = s.oid and u.objid <> ad.oid) as owned
  from pg_attrdef ad
  join pg_depend d on d.classid = 'pg_attrdef'::regclass and d.objid = ad.oid and d.refclassid = 'pg_class'::regclass
  join pg_class s on s.oid = d.refobjid and s.relkind = 'S'
  join pg_namespace sn on sn.oid = s.relnamespace
  where ad.adrelid = $1::oid and ad.adnum = $2`;

async function keyGenerator(session: SqlExecutor, table: CatalogTable, key: KeyColumn): Promise<KeyGenerator> {
  if (key.identity === 'a' || key.identity === 'd') {
    const [sequence] = await session.query<QualifiedName>(identitySql, [table.oid, key.attnum]);
    if (sequence) return { kind: 'identity', always: key.identity === 'a', sequence: { ...sequence } };
  }
  const [found] = await session.query<QualifiedName & { owned: boolean }>(defaultSequenceSql, [table.oid, key.attnum]);
  if (found) return { kind: 'sequence', sequence: { schema: found.schema, name: found.name }, owned: found.owned };
  return { kind: 'none' };
}

/** The last value a sequence handed out (or will hand out first, when never called). */
async function lastValue(session: SqlExecutor, sequence: QualifiedName): Promise<bigint | null> {
  const [row] = await session.query<{ last_value: string }>(
    `select last_value::text as last_value from ${qualify(session.dialect, sequence)}`,
  );
  return row ? BigInt(row.last_value) : null;
}
