import { type Check, check } from './check.js';
import { fleetOf, sameDatabase } from './fleet.js';
import type { Snapshot } from './probe.js';

/**
 * The database's configured shard against every other database checked: two with one shard issue
 * the same ids. A URL of a database given already (same database_id) is not another database.
 */
export function shardCheck(snapshot: Snapshot, all: readonly Snapshot[]): Check {
  const shard = snapshot.state!.shard;
  const installed = fleetOf(all).members;
  const clashes = installed.filter((other) => !sameDatabase(other, snapshot) && other.state.shard === shard);
  if (clashes.length > 0) {
    const names = clashes.map((other) => other.label);
    return check(
      'shard',
      'fail',
      `shard ${shard} is also configured on ${names.join(', ')}: their ids collide; give each its own (sheaf install --shard N)`,
      { code: 'SHARD_TAKEN', details: { shard, sameShard: names } },
    );
  }
  const scope =
    installed.length > 1
      ? `unique among the ${installed.length} databases checked`
      : 'the only database checked: pass every database that issues ids as --url';
  return check('shard', 'ok', `shard ${shard}, ${scope}`, { details: { shard } });
}
