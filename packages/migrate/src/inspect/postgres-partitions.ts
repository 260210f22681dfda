import type { SqlExecutor } from '@sheaf/core';
import { display, displayPart } from '../names.js';
import { type ForeignKeyGraph, foreignKeyClosure, type KeyColumn } from './postgres-foreign-keys.js';
import type { CatalogTable } from './postgres-tables.js';

// Columns named by a partition key: plain ones in partattrs (0 marks an expression), the ones read
// by expressions from the node trees of partexprs, as online-indexes.ts reads index expressions.
const keyColumns = `array(
    select k::int from unnest(p.partattrs::int2[]) k where k <> 0
    union select m[1]::int from regexp_matches(coalesce(p.partexprs::text, ''), ':varattno (\\d+)', 'g') m)`;

/** A partitioned table's partition key, as `pg_get_partkeydef` prints it, and the columns it reads. */
export interface PartitionKey {
  readonly definition: string;
  readonly attnums: readonly number[];
}

/** The partition key of a partitioned table, or null for any other table. */
export async function partitionKey(session: SqlExecutor, table: CatalogTable): Promise<PartitionKey | null> {
  const [row] = await session.query<{ definition: string; attnums: number[] }>(
    `select pg_get_partkeydef(p.partrelid) as definition, ${keyColumns} as attnums
     from pg_partitioned_table p where p.partrelid = $1::oid`,
    [table.oid],
  );
  return row ? { definition: row.definition, attnums: row.attnums } : null;
}

/**
 * Why a partitioned table keyed by one integer column cannot move onto sheaf ids. Its primary key
 * must include the partition key, so that column is the partition key: its values choose each
 * row's partition, and PostgreSQL cannot change the type of a partition key column.
 */
export function partitionedKeyReason(table: CatalogTable, column: string, key: PartitionKey): string {
  return (
    `table ${display(table)} is partitioned by its key ${displayPart(column)} (${key.definition}): ` +
    `the key chooses each row's partition, so sheaf ids (far above today's keys) would send new rows to other partitions or to none, ` +
    `and PostgreSQL cannot change the type of a partition key column`
  );
}

// The changing columns that some partitioned table of their partition tree (the root, or a
// partition partitioned again) uses in its partition key, matched by name: ALTER TYPE at the root
// reaches every level and is refused at the first partition key on the way.
const clashesSql = `
  with seed as (select (e->>0)::oid as oid, (e->>1)::int2 as attnum from jsonb_array_elements($1::jsonb) e)
  select seed.oid::text as oid, seed.attnum::int as attnum, sn.nspname as schema, sc.relname as table, sa.attname as column,
    tn.nspname as key_schema, t.relname as key_table, pg_get_partkeydef(p.partrelid) as definition
  from seed
  join pg_attribute sa on sa.attrelid = seed.oid and sa.attnum = seed.attnum
  join pg_class sc on sc.oid = seed.oid join pg_namespace sn on sn.oid = sc.relnamespace
  cross join lateral pg_partition_tree(seed.oid) tree
  join pg_partitioned_table p on p.partrelid = tree.relid
  join pg_attribute a on a.attrelid = tree.relid and a.attname = sa.attname and not a.attisdropped
  join pg_class t on t.oid = tree.relid join pg_namespace tn on tn.oid = t.relnamespace
  where a.attnum = any(${keyColumns})
  order by sn.nspname, sc.relname, sa.attname, tree.level`;

interface ClashRow {
  oid: string;
  attnum: number;
  schema: string;
  table: string;
  column: string;
  key_schema: string;
  key_table: string;
  definition: string;
}

/**
 * The keys that cannot widen because a column referencing them (directly or through a chain) is in
 * a partition key, each with the reason naming that column; the other keys are unaffected. Read per
 * key, so that under `--all` only the tables behind such a column are left out.
 */
export async function partitionKeyClashes(
  session: SqlExecutor,
  graph: ForeignKeyGraph,
  keys: readonly KeyColumn[],
): Promise<Map<KeyColumn, string>> {
  const widened = foreignKeyClosure(graph, keys).widened;
  const rows = await session.query<ClashRow>(clashesSql, [JSON.stringify(widened.map((r) => [r.oid, r.attnum]))]);
  const clashes = new Map<KeyColumn, string>();
  if (rows.length === 0) return clashes;
  for (const key of keys) {
    const reached = foreignKeyClosure(graph, [key]).widened;
    const row = rows.find((r) => reached.some((ref) => ref.oid === r.oid && ref.attnum === r.attnum));
    if (!row) continue;
    const column = `${display({ schema: row.schema, name: row.table })}.${displayPart(row.column)}`;
    const keyTable = display({ schema: row.key_schema, name: row.key_table });
    clashes.set(
      key,
      `table ${display(key.column.table)} cannot move onto sheaf ids: ${column} references its key ` +
        `${displayPart(key.column.column)} and is in the partition key of ${keyTable} (${row.definition}), ` +
        `and PostgreSQL cannot change the type of a partition key column`,
    );
  }
  return clashes;
}
