import { certificationConflict } from '../certification-conflict.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';

/**
 * How a MySQL-family install binds a Galera node to its own shard (sql/mysql/0015): the statements
 * name `{state}`, filled in by the dialect's bind.
 */
export interface NodeShardInstall {
  /** The first file version with `sheaf_nodes` and `sheaf_bind_node`. */
  readonly from: number;
  /** One row: `galera` (wsrep_on), `node`, `bound` (how many nodes have a shard), `node_shard` (this node's). */
  readonly reading: string;
  /** Binds this node; parameter: the shard. */
  readonly bind: string;
}

/** This node as the install sees it: undefined off Galera. */
export interface GaleraNode {
  readonly node: string;
  /** How many nodes of the cluster have a shard already. */
  readonly bound: number;
  /** This node's shard, if it has one. */
  readonly shard: number | undefined;
}

/** Reads whether the server is a Galera node and, if so, the shards bound so far. */
export async function readGaleraNode(session: SqlExecutor, nodes: NodeShardInstall): Promise<GaleraNode | undefined> {
  const [row] = await session.query<{ galera: unknown; node: unknown; bound: unknown; node_shard: unknown }>(
    nodes.reading,
  );
  if (!row || Number(row.galera) !== 1) return undefined;
  return {
    node: String(row.node),
    bound: Number(row.bound),
    shard: row.node_shard === null || row.node_shard === undefined ? undefined : Number(row.node_shard),
  };
}

/** Is this server a Galera node (wsrep_on)? MySQL, which has no wsrep variables, is not. */
export async function galeraOn(session: SqlExecutor): Promise<boolean> {
  const rows = await session.query<{ Value: unknown }>("show global variables like 'wsrep\\_on'");
  return String(rows[0]?.Value).toUpperCase() === 'ON';
}

// Two nodes binding one shard at once: certification aborts one with a deadlock (1213); its retry
// then finds the other's row and is refused with SHARD_TAKEN.
const attempts = 5;

/**
 * Binds this Galera node to `shard` (idempotent for the shard it has; refused for another one,
 * for a shard another node has and for a name two members share).
 */
export async function bindNode(session: SqlExecutor, nodes: NodeShardInstall, shard: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await session.query(nodes.bind, [shard]);
      return;
    } catch (error) {
      if (attempt >= attempts || !certificationConflict(error)) throw error;
    }
  }
}

/** install() with a registry on a Galera node: its nodes' shards would need one claim each there. */
export function galeraRegistryRefused(): SheafError {
  return new SheafError(
    'INVALID_ARGUMENT',
    'install with a registry is not supported on a Galera node: each node issues a shard of its own, which the ' +
      'registry would not see (docs/galera.md)',
    { details: { registry: true } },
  );
}
