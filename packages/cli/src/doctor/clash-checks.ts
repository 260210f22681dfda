import { type Check, check } from './check.js';
import { relationOf } from './database-relation.js';
import type { Fleet } from './fleet.js';
import { listed } from './format.js';
import { type Clash, clashesOf, describeHolding, type Holding } from './id-space.js';
import { newShardFix } from './shard-fix.js';

/**
 * In value order, one failure per shard value held by two holders or more, and a warning per claim
 * an install has not confirmed. Two databases configured with one shard and nothing else are left
 * to each one's `shard` check, which reports them already.
 */
export function clashChecks(holdings: readonly Holding[], fleet: Fleet): Check[] {
  const clashes = clashesOf(holdings).filter((clash) => !clash.holdings.every((h) => h.kind === 'configured'));
  const clashing = new Set(clashes.map((clash) => clash.value));
  const pending = holdings.filter((holding) => holding.kind === 'pending' && !clashing.has(holding.value));
  const found: [number, Check][] = [
    ...clashes.map((clash): [number, Check] => [clash.value, clashCheck(clash, fleet)]),
    ...pending.map((holding): [number, Check] => [holding.value, pendingCheck(holding)]),
  ];
  return found.sort(([a], [b]) => a - b).map(([, result]) => result);
}

function clashCheck(clash: Clash, fleet: Fleet): Check {
  const sides = clash.holdings.map(describeHolding);
  return check(
    `shard ${clash.value}`,
    'fail',
    `shard ${clash.value}: ${listed(sides)}: their ids collide${copyFix(clash, fleet)}`,
    {
      code: 'SHARD_TAKEN',
      details: {
        shard: clash.value,
        holders: clash.holdings.map(({ kind, readIn, name, databaseId }) => ({
          kind,
          database: readIn,
          holder: name,
          ...(databaseId === undefined ? {} : { databaseId }),
        })),
      },
    },
  );
}

// An install claims its shard before it commits (so two installs cannot both take it) and confirms
// after: a claim left unconfirmed blocks the value until it is released.
function pendingCheck(holding: Holding): Check {
  const at = holding.heartbeatMs === undefined ? undefined : new Date(holding.heartbeatMs).toISOString();
  return check(
    `shard ${holding.value}`,
    'warn',
    `shard ${holding.value}: ${describeHolding(holding)}${at ? ` since ${at}` : ''}: an install that failed may ` +
      'have left this claim; release it unless that install is still running',
    { details: { shard: holding.value, database: holding.readIn, databaseId: holding.databaseId, claimedAt: at } },
  );
}

// Two databases given that issue one value and are one database copied (one database_id) or cloned
// (one node identity): giving the copy a shard of its own also drops the logical shards it copied.
function copyFix(clash: Clash, fleet: Fleet): string {
  const issuing = fleet.members.filter((member) =>
    clash.holdings.some((h) => (h.kind === 'configured' || h.kind === 'logical') && h.readIn === member.label),
  );
  const [a, b] = issuing;
  if (a === undefined || b === undefined) return '';
  const relation = relationOf(a, b);
  if (relation.kind !== 'copy' && relation.kind !== 'clone') return '';
  const what =
    relation.kind === 'copy'
      ? `copies of one database (database_id ${relation.databaseId}) on two nodes`
      : `physical clones of one database (node identity ${relation.identity}) on two servers`;
  return `; ${a.label} and ${b.label} are ${what}: ${newShardFix(a, b, fleet.members)}`;
}
