import { targetUrl } from '../connection.js';
import { isCopy, type Relation, relationOf } from './database-relation.js';
import { nodeShardsOf } from './galera-shards.js';
import type { Snapshot } from './probe.js';

/**
 * Of two databases issuing one shard, the one to give a new shard: the copy (bound to another
 * node, SQL version 16 on), else the one that is no Galera node (which keeps its shard), else the
 * one given later, so that both databases' lines name the same.
 */
export function toMove(a: Snapshot, b: Snapshot, order: readonly Snapshot[]): Snapshot {
  if (isCopy(a) !== isCopy(b)) return isCopy(a) ? a : b;
  if (keepsShard(a) !== keepsShard(b)) return keepsShard(a) ? b : a;
  return order.indexOf(a) > order.indexOf(b) ? a : b;
}

/**
 * The fix for two databases issuing one shard: `give one of them a new shard: sheaf install --url
 * <url> --shard <N>`, with `--clone` for a physical clone, which shares its original's identity
 * and database_id until told it is a database of its own. Two nodes of one Galera cluster issue
 * one shard when they share a name, which is what changes; a Galera node never takes another shard.
 */
export function newShardFix(a: Snapshot, b: Snapshot, order: readonly Snapshot[]): string {
  const moved = toMove(a, b, order);
  const relation = relationOf(a, b);
  if (relation.kind === 'nodes') {
    return (
      'give each Galera node a wsrep_node_name of its own (server config), then run ' +
      `sheaf install --url ${targetUrl(moved.target)} --shard <N> on the renamed one`
    );
  }
  if (keepsShard(moved)) return 'neither can be given another shard: a Galera node keeps the shard bound to its name';
  const clone = relation.kind === 'clone' ? ' --clone' : '';
  return `give one of them a new shard: sheaf install --url ${targetUrl(moved.target)} --shard <N>${clone}`;
}

/** Why two databases with one database_id or node identity are two: ` (…)` to follow a name, or ''. */
export function relationNote(relation: Relation): string {
  if (relation.kind === 'copy') return ` (a copy: one database_id ${relation.databaseId} on two nodes)`;
  if (relation.kind === 'clone') {
    return ` (a physical clone: one node identity ${relation.identity} on two servers)`;
  }
  if (relation.kind === 'nodes') {
    return ` (a node of the same Galera cluster ${relation.clusterUuid}, also named ${relation.names[1]})`;
  }
  return '';
}

// sheaf_bind_node refuses another shard for a bound node: ids of the old one may be ahead of the clock.
function keepsShard(snapshot: Snapshot): boolean {
  return nodeShardsOf(snapshot) !== undefined;
}
