import { realpathSync } from 'node:fs';
import type { SqlExecutor } from '@sheaf/core';
import type { Target } from '../connection.js';

/** What the settings row says about the node its shard is bound to (SQL version 16 on). */
export interface BoundNode {
  /** `settings.node_identity`: null where no node is recorded, which the generator treats as a copy. */
  readonly identity: string | null;
  /** The database the shard was bound on, as its install named it (`settings.database_name`). */
  readonly databaseName: string;
  readonly databaseId: string;
  readonly shard: number;
}

/** PostgreSQL: the node a database runs on, and the server process reached. */
export interface NodeReading {
  /** `'<system_identifier>/<database oid>'` (`sheaf.node_identity()`): a copy has another. */
  readonly identity: string;
  /**
   * The server reached: its start time (a PGlite directory: its path). One database reached under
   * two URLs shows one; a physical clone, which shares the identity, shows another.
   */
  readonly server: string;
  /** A hot standby (in recovery): it issues no ids. */
  readonly standby: boolean;
  /** Undefined before SQL version 16, or where the settings row is missing or cannot be read. */
  readonly bound?: BoundNode;
}

// sheaf.node_identity()'s own expression, for versions before 16 and roles that may not execute it
// (PUBLIC has nothing of sheaf): every role may read both parts.
const identityExpression = `coalesce(case when has_function_privilege('pg_catalog.pg_control_system()', 'execute')
    then (select c.system_identifier::text from pg_control_system() c) end, 'unknown')
  || '/' || (select d.oid::text from pg_database d where d.datname = current_database())`;

const serverSql = `select (extract(epoch from pg_postmaster_start_time()) * 1000000)::bigint::text as started,
  pg_is_in_recovery() as standby,
  to_regprocedure('sheaf.node_identity()') is not null
    and has_function_privilege('sheaf.node_identity()', 'execute') as callable,
  to_regclass('sheaf.settings') is not null and has_table_privilege('sheaf.settings', 'select') as settings`;

// Through to_jsonb: the column is missing before version 16.
const boundSql = `select to_jsonb(s) ? 'node_identity' as recorded, to_jsonb(s) ->> 'node_identity' as identity,
  s.database_name, s.database_id::text as database_id, s.shard_id from sheaf.settings s`;

/** Reads the node identity of a PostgreSQL database, and the one its settings row is bound to. */
export async function readNode(executor: SqlExecutor, target: Target): Promise<NodeReading> {
  const [server] = await executor.query<Record<string, unknown>>(serverSql);
  const [live] = await executor.query<{ identity: unknown }>(
    `select ${server?.callable === true ? 'sheaf.node_identity()' : identityExpression} as identity`,
  );
  const [row] = server?.settings === true ? await executor.query<Record<string, unknown>>(boundSql) : [];
  const reading = {
    identity: String(live?.identity),
    // PGlite starts anew with each process that opens the directory: the directory is the server.
    server: target.driver === 'pglite' ? `directory ${realpath(target.dir)}` : `started ${String(server?.started)}`,
    standby: server?.standby === true,
  };
  if (row?.recorded !== true) return reading;
  const bound: BoundNode = {
    identity: row.identity == null ? null : String(row.identity),
    databaseName: String(row.database_name),
    databaseId: String(row.database_id),
    shard: Number(row.shard_id),
  };
  return { ...reading, bound };
}

/** Whether the identity names the server: where pg_control_system() is hidden it holds the oid alone. */
export function knownIdentity(identity: string): boolean {
  return !identity.startsWith('unknown/');
}

function realpath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
