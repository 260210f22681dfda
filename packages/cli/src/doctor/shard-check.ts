import { type Check, check } from './check.js';
import { relationOf } from './database-relation.js';
import { fleetOf, sameDatabase } from './fleet.js';
import type { Snapshot } from './probe.js';
import { newShardFix, relationNote } from './shard-fix.js';

/**
 * The database's configured shard against every other database checked: two with one shard issue
 * the same ids, whatever their database_id says (a copy keeps its original's). A URL of a database
 * given already (one node identity on one server; without it, one database_id) is not another.
 */
export function shardCheck(snapshot: Snapshot, all: readonly Snapshot[]): Check {
  const shard = snapshot.state!.shard;
  const installed = fleetOf(all).members;
  const clashes = installed.filter((other) => !sameDatabase(other, snapshot) && other.state.shard === shard);
  if (clashes.length > 0) {
    const names = clashes.map((other) => `${other.label}${relationNote(relationOf(snapshot, other))}`);
    const fixes = [...new Set(clashes.map((other) => newShardFix(snapshot, other, all)))];
    return check(
      'shard',
      'fail',
      `shard ${shard} is also configured on ${names.join(', ')}: their ids collide; ${fixes.join('; ')}`,
      { code: 'SHARD_TAKEN', details: { shard, sameShard: clashes.map((other) => other.label) } },
    );
  }
  const scope =
    installed.length > 1
      ? `unique among the ${installed.length} databases checked`
      : 'the only database checked: pass every database that issues ids as --url';
  return check('shard', 'ok', `shard ${shard}, ${scope}`, { details: { shard } });
}
