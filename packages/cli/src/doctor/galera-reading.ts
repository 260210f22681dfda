import { inState, type SqlExecutor } from '@sheaf/core';

/** The SQL version (sql/mysql/0015_node_shards.sql) from which each Galera node issues a shard of its own. */
export const nodeShardsFrom = 15;

/** A member of the cluster as the view sees it (`mysql.wsrep_cluster_members`). */
export interface GaleraMember {
  /** Its `wsrep_gcomm_uuid`. */
  readonly uuid: string;
  /** Its `wsrep_node_name`; this node's as it is now (the table keeps the name the node joined with). */
  readonly name: string;
  /** `wsrep_node_incoming_address`: where clients reach it. */
  readonly address: string;
}

/** A row of `sheaf_nodes`: the node of that name issues that shard, from that counter slot. */
export interface NodeBinding {
  readonly node: string;
  readonly shard: number;
  readonly slot: number;
}

/** A MySQL/MariaDB server with `wsrep_on`, as sheaf's checks judge it. */
export interface GaleraReading {
  /** This node's `wsrep_node_name`. */
  readonly node: string;
  /** This node's `wsrep_gcomm_uuid`: two URLs with one are one node. */
  readonly nodeUuid: string;
  /** `wsrep_cluster_state_uuid`: two nodes with one are of one cluster, and hold one copy of every database. */
  readonly clusterUuid: string;
  /** `wsrep_auto_increment_control`: whether Galera keeps the nodes' AUTO_INCREMENT values apart. */
  readonly autoIncrementControl: boolean;
  readonly members: readonly GaleraMember[];
  /** `sheaf_nodes`, by node name; undefined before {@link nodeShardsFrom}. */
  readonly bindings?: readonly NodeBinding[];
}

const variablesSql = `show global variables where variable_name in
  ('wsrep_on', 'wsrep_node_name', 'wsrep_auto_increment_control')`;
const statusSql = "show global status where variable_name in ('wsrep_cluster_state_uuid', 'wsrep_gcomm_uuid')";
const membersSql = `select node_uuid, node_name, node_incoming_address from mysql.wsrep_cluster_members
  order by node_name, node_incoming_address`;
const bindingsSql = 'select node, shard_id, slot from {state}.sheaf_nodes order by node';

/**
 * MySQL/MariaDB: this server's Galera node, its cluster's members and (from SQL version 15, given
 * `version`) the shards bound to node names; undefined where wsrep is off or absent (MySQL, PostgreSQL).
 */
export async function readGalera(executor: SqlExecutor, version: number): Promise<GaleraReading | undefined> {
  if (executor.dialect.name !== 'mysql') return undefined;
  const variables = await named(executor, variablesSql);
  if (!on(variables.get('wsrep_on'))) return undefined;
  const status = await named(executor, statusSql);
  const node = variables.get('wsrep_node_name') ?? '';
  const nodeUuid = status.get('wsrep_gcomm_uuid') ?? '';
  const members = await executor.query<Record<string, unknown>>(membersSql);
  const reading = {
    node,
    nodeUuid,
    clusterUuid: status.get('wsrep_cluster_state_uuid') ?? '',
    autoIncrementControl: on(variables.get('wsrep_auto_increment_control')),
    // The table is written at each view change: a name set since (SET GLOBAL) is only this node's own to read.
    members: members.map((row) => ({
      uuid: String(row.node_uuid),
      name: String(row.node_uuid) === nodeUuid ? node : String(row.node_name),
      address: String(row.node_incoming_address),
    })),
  };
  if (version < nodeShardsFrom) return reading;
  const sql = await inState(executor, { bindingsSql });
  const rows = await executor.query<Record<string, unknown>>(sql.bindingsSql);
  const bindings = rows.map((row) => ({ node: String(row.node), shard: Number(row.shard_id), slot: Number(row.slot) }));
  return { ...reading, bindings };
}

/** The binding of this node's name, if it has one. */
export function ownBinding(galera: GaleraReading): NodeBinding | undefined {
  return galera.bindings?.find((binding) => binding.node === galera.node);
}

async function named(executor: SqlExecutor, sql: string): Promise<Map<string, string>> {
  const rows = await executor.query<Record<string, unknown>>(sql);
  return new Map(rows.map((row) => [String(row.Variable_name).toLowerCase(), String(row.Value)]));
}

function on(value: string | undefined): boolean {
  return value === 'ON' || value === '1';
}
