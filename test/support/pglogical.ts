import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlExecutor } from '@sheaf/core';
import { eventually } from './eventually.js';
import { postgresBinDir, requireBinDir, type ServerSettings } from './scratch-cluster.js';

/**
 * pglogical 2 (Debian's postgresql-<major>-pglogical, installed by scripts/services.sh as root) on
 * scratch clusters: the settings a node needs, and the calls of its two-node multi-primary recipe.
 */

/** Why pglogical cannot run on a scratch cluster of this machine, or undefined when it can. */
export function pglogicalMissing(): string | undefined {
  const bin = postgresBinDir();
  if (!bin) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  const library = join(bin, '..', 'lib', 'pglogical.so');
  return existsSync(library)
    ? undefined
    : `${library} is absent (apt-get install postgresql-<major>-pglogical; scripts/services.sh does it as root)`;
}

/** What a pglogical node's server starts with. */
export function pglogicalSettings(): ServerSettings {
  const settings: Record<string, string | number> = {
    wal_level: 'logical',
    shared_preload_libraries: 'pglogical',
    track_commit_timestamp: 'on',
    max_replication_slots: 10,
    max_wal_senders: 10,
    max_worker_processes: 16,
  };
  // Recent minor releases let a slot use only the output plugins this list trusts; older ones have
  // no such setting and refuse to start when given it.
  const known = execFileSync(join(requireBinDir(), 'postgres'), ['--describe-config']).toString();
  if (/^output_plugin_libraries\t/m.test(known)) {
    settings.output_plugin_libraries = 'pgoutput,test_decoding,pglogical_output';
  }
  return settings;
}

/** The libpq connection string pglogical stores for a database of a scratch cluster. */
export const dsnOf = (port: number, database: string) => `host=127.0.0.1 port=${port} dbname=${database} user=postgres`;

/** Creates the extension and this database's node. */
export async function createNode(sql: SqlExecutor, name: string, dsn: string): Promise<void> {
  await sql.query('create extension if not exists pglogical');
  await sql.query('select pglogical.create_node(node_name := $1, dsn := $2)', [name, dsn]);
}

/**
 * Subscribes to the replication set `set` of the provider at `providerDsn`: tables already exist on
 * both sides and are empty, and changes that came from a third node are not forwarded (the recipe's
 * `forward_origins '{}'`, which keeps two nodes replicating both ways from looping). Resolves once
 * the subscription replicates.
 */
export async function subscribe(sql: SqlExecutor, name: string, providerDsn: string, set: string): Promise<void> {
  await sql.query(
    `select pglogical.create_subscription(subscription_name := $1, provider_dsn := $2,
       replication_sets := array[$3], synchronize_structure := false, synchronize_data := false,
       forward_origins := '{}')`,
    [name, providerDsn, set],
  );
  await eventually(
    async () => {
      const [row] = await sql.query<{ status: string }>('select status from pglogical.show_subscription_status($1)', [
        name,
      ]);
      return row?.status === 'replicating';
    },
    30_000,
    `pglogical subscription ${name}`,
  );
}
