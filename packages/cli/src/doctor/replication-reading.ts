import type { SqlExecutor } from '@sheaf/core';

/** A publication or pglogical replication set holding relations of schema sheaf. */
export interface ReplicatedSheaf {
  readonly via: 'publication' | 'pglogical replication set';
  /** The publication's or the replication set's name. */
  readonly name: string;
  /** The relations of schema sheaf it replicates, `sheaf.settings`, in name order. */
  readonly relations: readonly string[];
}

// pg_publication_tables expands FOR ALL TABLES and (PostgreSQL 15) TABLES IN SCHEMA into tables.
const publicationsSql = `select pubname as name, array_agg('sheaf.' || tablename order by tablename) as relations
  from pg_catalog.pg_publication_tables where schemaname = 'sheaf' group by pubname order by pubname`;

const pglogicalSql = "select exists (select from pg_catalog.pg_namespace where nspname = 'pglogical') as present";

// Tables and, where pglogical replicates sequences (replication_set_seq), sequences.
const replicationSetsSql = (withSequences: boolean) => `select s.set_name as name,
    array_agg(n.nspname || '.' || c.relname order by c.relname) as relations
  from (select set_id, set_reloid as relid from pglogical.replication_set_table
    ${withSequences ? 'union all select set_id, set_seqoid from pglogical.replication_set_seq' : ''}) r
  join pglogical.replication_set s on s.set_id = r.set_id
  join pg_catalog.pg_class c on c.oid = r.relid
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'sheaf' group by s.set_name order by s.set_name`;

const sequencesSetSql = "select to_regclass('pglogical.replication_set_seq') is not null as present";

/**
 * PostgreSQL: every publication, and every pglogical replication set where schema pglogical
 * exists, that replicates a table (or sequence) of schema sheaf. Its rows would arrive on another
 * database as that database's own: its settings bound to this node, its shard (docs/replication.md).
 */
export async function readReplicatedSheaf(executor: SqlExecutor): Promise<ReplicatedSheaf[]> {
  const publications = await executor.query<{ name: unknown; relations: unknown }>(publicationsSql);
  const found = publications.map((row) => replicated('publication', row));
  const [pglogical] = await executor.query<{ present: unknown }>(pglogicalSql);
  if (pglogical?.present !== true) return found;
  const [sequences] = await executor.query<{ present: unknown }>(sequencesSetSql);
  const sets = await executor.query<{ name: unknown; relations: unknown }>(
    replicationSetsSql(sequences?.present === true),
  );
  return [...found, ...sets.map((row) => replicated('pglogical replication set', row))];
}

function replicated(via: ReplicatedSheaf['via'], row: { name: unknown; relations: unknown }): ReplicatedSheaf {
  return { via, name: String(row.name), relations: textArray(row.relations) };
}

// pg returns text[] as an array; PGlite too; a driver without array parsing as '{a,b}'.
function textArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean);
}
