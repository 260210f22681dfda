import { galeraOf, nodeShardsOf } from './galera-shards.js';
import { knownIdentity, type NodeReading } from './node-reading.js';
import { isUnreadable, type Snapshot } from './probe.js';

/**
 * How two databases given to the doctor relate. `same` and `standby` are one database, compared
 * once; the others are databases of their own, whatever their settings say.
 */
export type Relation =
  /** One database under two URLs; `by`: what shows it, `node identity …` or `database_id …`. */
  | { readonly kind: 'same'; readonly by: string }
  /** A hot standby of the other (one node identity, in recovery): it issues no ids. */
  | { readonly kind: 'standby'; readonly identity: string; readonly standby: Snapshot; readonly primary: Snapshot }
  /** One node identity on two servers: a physical clone (pg_basebackup, a disk snapshot) promoted on its own. */
  | { readonly kind: 'clone'; readonly identity: string }
  /** One database_id on two nodes: a restore, a template, a logical sync of the other. */
  | { readonly kind: 'copy'; readonly databaseId: string }
  /**
   * Two nodes of one Galera cluster from SQL version 15: one database, but each node issues a shard
   * of its own, bound to its `wsrep_node_name` (`names`: a's, b's).
   */
  | { readonly kind: 'nodes'; readonly clusterUuid: string; readonly names: readonly [string, string] }
  | { readonly kind: 'other' };

/**
 * How `a` and `b` relate. On PostgreSQL the node identity decides (docs/replication.md): a copy
 * keeps the original's database_id but runs on another node, so one database_id is no longer
 * proof of one database. Where the identity cannot be read (MySQL/MariaDB, a service hiding
 * pg_control_system()) one database_id still is, but on Galera only within one cluster: there the
 * node (`wsrep_gcomm_uuid`) tells one URL from another, and from SQL version 15 two nodes are two
 * issuers of one database.
 */
export function relationOf(a: Snapshot, b: Snapshot): Relation {
  if (a === b) return { kind: 'same', by: 'one URL' };
  const [nodeA, nodeB] = [nodeOf(a), nodeOf(b)];
  const idA = databaseIdOf(a);
  const sharedId = idA !== undefined && idA === databaseIdOf(b) ? idA : undefined;
  const galera = galeraRelation(a, b, sharedId);
  if (galera) return galera;
  if (nodeA && nodeB && knownIdentity(nodeA.identity) && knownIdentity(nodeB.identity)) {
    const { identity } = nodeA;
    if (identity !== nodeB.identity)
      return sharedId === undefined ? { kind: 'other' } : { kind: 'copy', databaseId: sharedId };
    if (nodeA.server === nodeB.server) return { kind: 'same', by: `node identity ${identity}` };
    if (nodeA.standby) return { kind: 'standby', identity, standby: a, primary: b };
    if (nodeB.standby) return { kind: 'standby', identity, standby: b, primary: a };
    return { kind: 'clone', identity };
  }
  return sharedId === undefined ? { kind: 'other' } : { kind: 'same', by: `database_id ${sharedId}` };
}

// Undefined where neither is a Galera node, or where one's reading failed: the database_id decides.
function galeraRelation(a: Snapshot, b: Snapshot, sharedId: string | undefined): Relation | undefined {
  if (isUnreadable(a.galera) || isUnreadable(b.galera)) return undefined;
  const [galeraA, galeraB] = [galeraOf(a), galeraOf(b)];
  if (galeraA === undefined && galeraB === undefined) return undefined;
  const apart: Relation = sharedId === undefined ? { kind: 'other' } : { kind: 'copy', databaseId: sharedId };
  if (galeraA === undefined || galeraB === undefined || galeraA.clusterUuid !== galeraB.clusterUuid) return apart;
  if (sharedId === undefined) return { kind: 'other' };
  if (galeraA.nodeUuid === galeraB.nodeUuid) return { kind: 'same', by: `Galera node ${galeraA.nodeUuid}` };
  const { clusterUuid } = galeraA;
  if (nodeShardsOf(a) && nodeShardsOf(b)) return { kind: 'nodes', clusterUuid, names: [galeraA.node, galeraB.node] };
  // Before version 15 every node issues the configured shard: the galera check fails that.
  return { kind: 'same', by: `database_id ${sharedId} on Galera cluster ${clusterUuid}` };
}

/** Whether two snapshots are compared as one database: the same one, or a standby of it. */
export function isOneDatabase(relation: Relation): boolean {
  return relation.kind === 'same' || relation.kind === 'standby';
}

/**
 * Whether the database runs on another node than its shard is bound to (SQL version 16 on): a copy,
 * which the generator refuses to issue from until it gets a shard of its own.
 */
export function isCopy(snapshot: Snapshot): boolean {
  const node = nodeOf(snapshot);
  return node?.bound !== undefined && node.bound.identity !== node.identity;
}

/** The node reading of a snapshot, when it could be read. */
export function nodeOf(snapshot: Snapshot): NodeReading | undefined {
  return snapshot.node === undefined || isUnreadable(snapshot.node) ? undefined : snapshot.node;
}

function databaseIdOf(snapshot: Snapshot): string | undefined {
  return snapshot.idSpace === undefined || isUnreadable(snapshot.idSpace) ? undefined : snapshot.idSpace.databaseId;
}
