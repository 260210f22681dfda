import { type Check, check } from './check.js';
import { grouped } from './format.js';
import { isUnreadable, type Unreadable } from './probe.js';
import type { AutoIncrementKey, TriggerKeys } from './trigger-keys.js';

/** A day of milliseconds: a counter past a day's worth of the layout's ids holds sheaf-sized values. */
const dayMs = 86_400_000n;

/** Why a key without a trigger looks like a sheaf key. */
type Reason = 'sheaf-sized counter' | 'other tables have sheaf triggers';

/**
 * MySQL/MariaDB only (column defaults cannot call sheaf there): a BIGINT AUTO_INCREMENT primary key,
 * the shape sheaf recommends, on a table without a sheaf trigger gets counter values from every
 * insert that brings no id. It warns when the key looks like a sheaf key: its counter is at or above
 * the first id the layout makes a day after its epoch (a trigger once filled it, and the counter
 * followed), or other tables of the database have sheaf triggers.
 */
export function triggersCheck(
  keys: TriggerKeys | Unreadable,
  bits: { readonly shardBits: number; readonly sequenceBits: number },
): Check {
  if (isUnreadable(keys)) return check('triggers', 'warn', `cannot read the triggers: ${keys.unreadable}`);
  const floor = dayMs << BigInt(bits.shardBits + bits.sequenceBits);
  const flagged = keys.withoutTrigger.flatMap((key) => {
    const reason = reasonFor(key, floor, keys.withTrigger.length);
    return reason ? [{ key, reason }] : [];
  });
  const withTrigger = keys.withTrigger.length;
  const details = {
    withTrigger,
    missing: flagged.map(({ key, reason }) => ({ ...key, nextValue: key.nextValue?.toString() ?? null, reason })),
  };
  const triggered = `${grouped(withTrigger)} table${withTrigger === 1 ? '' : 's'} with a sheaf trigger`;
  if (flagged.length === 0) return check('triggers', 'ok', `${triggered}; no sheaf-like key without one`, { details });
  const shown = flagged.slice(0, 5).map(({ key, reason }) => `${key.table}.${key.column} (${describe(key, reason)})`);
  const more = flagged.length > shown.length ? `, and ${flagged.length - shown.length} more` : '';
  return check(
    'triggers',
    'warn',
    `${triggered}; ${flagged.length === 1 ? 'a BIGINT AUTO_INCREMENT key lacks' : `${flagged.length} BIGINT AUTO_INCREMENT keys lack`} ` +
      `one: ${shown.join(', ')}${more}. Inserts without an id get counter values, not sheaf ids: create the trigger ` +
      '(sheafTriggerSql), or ignore a table meant to count 1, 2, 3',
    { details },
  );
}

function reasonFor(key: AutoIncrementKey, floor: bigint, withTrigger: number): Reason | undefined {
  if (key.nextValue !== null && key.nextValue >= floor) return 'sheaf-sized counter';
  return withTrigger > 0 ? 'other tables have sheaf triggers' : undefined;
}

function describe(key: AutoIncrementKey, reason: Reason): string {
  return reason === 'sheaf-sized counter' ? `counter at ${key.nextValue}, a sheaf-sized value` : reason;
}
