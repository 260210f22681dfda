import { type Check, check } from './check.js';
import type { Snapshot } from './probe.js';

/** The database's shard against every other database checked: two with one shard issue the same ids. */
export function shardCheck(snapshot: Snapshot, all: readonly Snapshot[]): Check {
  const shard = snapshot.state!.shard;
  const installed = all.filter((other) => other.state !== undefined);
  const clashes = installed.filter((other) => other !== snapshot && other.state!.shard === shard);
  if (clashes.length > 0) {
    const names = clashes.map((other) => other.label);
    return check(
      'shard',
      'fail',
      `shard ${shard} is also configured on ${names.join(', ')}: their ids collide; give each its own (sheaf install --shard N)`,
      { code: 'SERVER_CONFIG', details: { shard, sameShard: names } },
    );
  }
  const scope =
    installed.length > 1
      ? `unique among the ${installed.length} databases checked`
      : 'the only database checked: pass every database that issues ids as --url';
  return check('shard', 'ok', `shard ${shard}, ${scope}`, { details: { shard } });
}
