import { type Check, check } from './check.js';
import type { Fleet } from './fleet.js';
import { grouped, listed } from './format.js';
import type { Holding } from './id-space.js';
import { isUnreadable } from './probe.js';

/** Share of shard values held above which a new database or generator is close to finding none. */
export const idSpaceWarnShare = 0.8;

/**
 * The shard values left for new databases and worker leases: 2^shardBits less every value held
 * (configured, logical, leased, registered or claimed) in any database checked. Layouts that
 * differ are a failure of their own; meanwhile the smallest shard field is the one all can use.
 */
export function idSpaceCheck(fleet: Fleet, holdings: readonly Holding[]): Check {
  const shardBits = Math.min(...fleet.members.map((member) => member.state.layout.shardBits));
  const size = 2 ** shardBits;
  const inField = holdings.filter((holding) => holding.value < size);
  const held = new Set(inField.map((holding) => holding.value)).size;
  const workers = new Set(inField.filter((h) => h.kind === 'leased').map((h) => h.holder)).size;
  const databases = new Set(inField.filter((h) => h.kind !== 'leased').map((h) => h.holder)).size;
  const unread = fleet.members.filter((member) => isUnreadable(member.idSpace)).map((member) => member.label);
  const percent = Math.round((held / size) * 1000) / 10;
  const details = {
    shardBits,
    values: size,
    held,
    left: size - held,
    usedPercent: percent,
    databases,
    workers,
    unread,
  };
  const message =
    `${grouped(size - held)} of ${grouped(size)} shard values left: ${grouped(held)} held by ` +
    `${count(databases, 'database')} and ${count(workers, 'worker lease')}`;
  const problems = [
    ...(held / size > idSpaceWarnShare ? [`${percent} % used, above ${idSpaceWarnShare * 100} %`] : []),
    ...(unread.length > 0 ? [`the holders in ${listed(unread)} could not be read and are not counted`] : []),
  ];
  if (problems.length > 0) return check('id space', 'warn', `${message}; ${problems.join('; ')}`, { details });
  return check('id space', 'ok', message, { details });
}

function count(n: number, noun: string): string {
  return `${grouped(n)} ${noun}${n === 1 ? '' : 's'}`;
}
