import { type GaleraReading, type NodeBinding, ownBinding } from './galera-reading.js';
import { isUnreadable, type Snapshot } from './probe.js';

/** A Galera node whose sheaf issues a shard per node (SQL version 15 on): `sheaf_nodes` was read. */
export type NodeShards = GaleraReading & { readonly bindings: readonly NodeBinding[] };

/** The Galera reading of a snapshot, when the server is a Galera node and it could be read. */
export function galeraOf(snapshot: Snapshot): GaleraReading | undefined {
  return snapshot.galera === undefined || isUnreadable(snapshot.galera) ? undefined : snapshot.galera;
}

/** The Galera reading of a node that issues a shard of its own, or would once bound. */
export function nodeShardsOf(snapshot: Snapshot): NodeShards | undefined {
  const galera = galeraOf(snapshot);
  return galera?.bindings === undefined ? undefined : (galera as NodeShards);
}

/**
 * The shard ids issued through this URL carry: on a Galera node from SQL version 15 its node's own
 * (undefined while it has none: it issues nothing), elsewhere the configured one (undefined
 * without a settings row).
 */
export function issuedShard(snapshot: Snapshot): number | undefined {
  const nodes = nodeShardsOf(snapshot);
  return nodes === undefined ? snapshot.state?.shard : ownBinding(nodes)?.shard;
}
