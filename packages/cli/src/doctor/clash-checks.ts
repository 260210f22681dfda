import { type Check, check } from './check.js';
import { listed } from './format.js';
import { type Clash, clashesOf, describeHolding, type Holding } from './id-space.js';

/**
 * In value order, one failure per shard value held by two holders or more, and a warning per claim
 * an install has not confirmed. Two databases configured with one shard and nothing else are left
 * to each one's `shard` check, which reports them already.
 */
export function clashChecks(holdings: readonly Holding[]): Check[] {
  const clashes = clashesOf(holdings).filter((clash) => !clash.holdings.every((h) => h.kind === 'configured'));
  const clashing = new Set(clashes.map((clash) => clash.value));
  const pending = holdings.filter((holding) => holding.kind === 'pending' && !clashing.has(holding.value));
  const found: [number, Check][] = [
    ...clashes.map((clash): [number, Check] => [clash.value, clashCheck(clash)]),
    ...pending.map((holding): [number, Check] => [holding.value, pendingCheck(holding)]),
  ];
  return found.sort(([a], [b]) => a - b).map(([, result]) => result);
}

function clashCheck(clash: Clash): Check {
  const sides = clash.holdings.map(describeHolding);
  return check(`shard ${clash.value}`, 'fail', `shard ${clash.value}: ${listed(sides)}: their ids collide`, {
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
  });
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
