import { type Check, check } from './check.js';
import { grouped } from './format.js';
import { isUnreadable, type Unreadable } from './probe.js';

/** Share of worker ids leased above which starting more generators is close to WORKERS_EXHAUSTED. */
export const workersWarnShare = 0.8;

/**
 * Live leases in `sheaf.workers` against the worker ids the layout has (its shard field:
 * SnowflakeGenerator's default `maxWorker`). Every id leased is a failure: the next generator's
 * start raises WORKERS_EXHAUSTED.
 */
export function workersCheck(live: number | Unreadable, shardBits: number): Check {
  if (isUnreadable(live)) return check('workers', 'warn', `cannot read the worker leases: ${live.unreadable}`);
  const capacity = 2 ** shardBits;
  const percent = Math.round((live / capacity) * 1000) / 10;
  const message = `${grouped(live)} of ${grouped(capacity)} worker ids leased (${percent} %)`;
  const details = { live, capacity, percent };
  if (live >= capacity) {
    return check('workers', 'fail', `${message}: a new SnowflakeGenerator gets none`, {
      code: 'WORKERS_EXHAUSTED',
      details,
    });
  }
  if (live / capacity > workersWarnShare) {
    return check(
      'workers',
      'warn',
      `${message}, above ${workersWarnShare * 100} %: stop idle generators or use more shard bits`,
      {
        details,
      },
    );
  }
  return check('workers', 'ok', message, { details });
}
