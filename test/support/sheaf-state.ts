import type { SqlExecutor } from '@sheaf/core';

/** The identity columns of a PostgreSQL database's `sheaf.settings`. */
export interface SheafSettings {
  readonly shard_id: number;
  readonly database_id: string;
  readonly database_name: string;
  readonly registry: string | null;
}

export async function sheafSettings(executor: SqlExecutor): Promise<SheafSettings> {
  const [row] = await executor.query<SheafSettings>(
    'select shard_id, database_id::text as database_id, database_name, registry from sheaf.settings',
  );
  if (!row) throw new Error('sheaf.settings has no row');
  return row;
}

/**
 * Whatever an install can change in schema sheaf, as one text: the settings row, the id space, the
 * versions recorded, the functions' definitions (a reconfigure bakes them anew) and the sequences.
 * Equal before and after an install that must change nothing.
 */
export async function sheafSnapshot(executor: SqlExecutor): Promise<string> {
  const [row] = await executor.query<{ snapshot: string }>(
    `select concat_ws(' | ',
       (select to_jsonb(s)::text from sheaf.settings s),
       (select string_agg(to_jsonb(w)::text, ',' order by w.worker_id) from sheaf.workers w),
       (select string_agg(version || ':' || checksum, ',' order by version) from sheaf.schema_versions),
       (select md5(string_agg(pg_get_functiondef(p.oid), '' order by p.oid::regprocedure::text))
          from pg_proc p where p.pronamespace = 'sheaf'::regnamespace and p.prokind = 'f'),
       (select string_agg(c.relname || '=' || coalesce(pg_sequence_last_value(c.oid)::text, 'never called'), ','
          order by c.relname)
          from pg_class c where c.relnamespace = 'sheaf'::regnamespace and c.relkind = 'S')) as snapshot`,
  );
  return row?.snapshot ?? '';
}

/** The shards a database's id space records as held by databases, with who holds each. */
export async function databaseHolders(executor: SqlExecutor): Promise<{ worker_id: number; database_id: string }[]> {
  return executor.query<{ worker_id: number; database_id: string }>(
    "select worker_id, database_id::text as database_id from sheaf.workers where kind = 'database' order by worker_id",
  );
}
