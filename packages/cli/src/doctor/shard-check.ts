import { type Check, check } from './check.js';
import { relationOf } from './database-relation.js';
import { fleetOf, sameDatabase } from './fleet.js';
import { galeraOf, issuedShard, nodeShardsOf } from './galera-shards.js';
import type { Snapshot } from './probe.js';
import { newShardFix, relationNote } from './shard-fix.js';

/**
 * The shard the database issues against every other database checked: two with one shard issue
 * the same ids, whatever their database_id says (a copy keeps its original's). A URL of a database
 * given already (one node identity on one server; without it, one database_id; one Galera node) is
 * not another; on Galera from SQL version 15 the shard is the node's own, and two nodes of one
 * cluster are two issuers.
 */
export function shardCheck(snapshot: Snapshot, all: readonly Snapshot[]): Check {
  const shard = issuedShard(snapshot);
  if (shard === undefined) {
    const node = galeraOf(snapshot)?.node;
    return check('shard', 'ok', `none: Galera node ${node} has no shard of its own and issues no ids (see galera)`, {
      details: { shard: null, node },
    });
  }
  const installed = fleetOf(all).members;
  const clashes = installed.filter((other) => !sameDatabase(other, snapshot) && issuedShard(other) === shard);
  if (clashes.length > 0) {
    const names = clashes.map((other) => `${other.label}${relationNote(relationOf(snapshot, other))}`);
    const fixes = [...new Set(clashes.map((other) => newShardFix(snapshot, other, all)))];
    return check(
      'shard',
      'fail',
      `shard ${shard} is also ${verb(clashes)} on ${names.join(', ')}: their ids collide; ${fixes.join('; ')}`,
      { code: 'SHARD_TAKEN', details: { shard, sameShard: clashes.map((other) => other.label) } },
    );
  }
  const scope =
    installed.length > 1
      ? `unique among the ${installed.length} databases checked`
      : 'the only database checked: pass every database that issues ids as --url';
  return check('shard', 'ok', `shard ${shard}, ${scope}`, { details: { shard } });
}

// A Galera node's shard is bound to the node, not configured.
function verb(others: readonly Snapshot[]): string {
  return others.some((other) => nodeShardsOf(other) !== undefined) ? 'issued' : 'configured';
}
