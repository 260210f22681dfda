import { mysqlStateOf, type SqlExecutor } from '@sheaf/core';

/** A member of the Galera cluster, as `mysql.wsrep_cluster_members` lists it. */
export interface GaleraMember {
  readonly name: string;
  readonly address: string;
}

/** MariaDB on a Galera node: the node, the cluster's members, and the shard each node name is bound to. */
export interface GaleraReading {
  /** This node's `wsrep_node_name`. */
  readonly node: string;
  /** This node's `wsrep_node_incoming_address` ('AUTO' where the server picks it). */
  readonly address: string;
  /** `wsrep_auto_increment_control`: what uniqueness rested on before SQL version 15. */
  readonly autoIncrementControl: boolean;
  readonly members: readonly GaleraMember[];
  /** `sheaf_nodes` (SQL version 15 on): node name → shard. */
  readonly bound: ReadonlyMap<string, number>;
}

/** Undefined off Galera (no wsrep variables, as on MySQL, or `wsrep_on` OFF). */
export async function readGalera(executor: SqlExecutor, version: number): Promise<GaleraReading | undefined> {
  let on: { galera: unknown; node: unknown; address: unknown; control: unknown } | undefined;
  try {
    [on] = await executor.query<{ galera: unknown; node: unknown; address: unknown; control: unknown }>(
      `select @@global.wsrep_on as galera, @@global.wsrep_node_name as node,
        @@global.wsrep_node_incoming_address as address, @@global.wsrep_auto_increment_control as control`,
    );
  } catch {
    return undefined;
  }
  if (!on || Number(on.galera) !== 1) return undefined;
  const members = await executor.query<{ node_name: unknown; node_incoming_address: unknown }>(
    'select node_name, node_incoming_address from mysql.wsrep_cluster_members order by node_name',
  );
  const bound = new Map<string, number>();
  if (version >= 15) {
    const { in: inState } = await mysqlStateOf(executor);
    const rows = await executor.query<{ node: unknown; shard_id: unknown }>(
      `select node, shard_id from ${inState('sheaf_nodes')} order by node`,
    );
    for (const row of rows) bound.set(String(row.node), Number(row.shard_id));
  }
  return {
    node: String(on.node),
    address: String(on.address),
    autoIncrementControl: Number(on.control) === 1,
    members: members.map((row) => ({ name: String(row.node_name), address: String(row.node_incoming_address) })),
    bound,
  };
}
