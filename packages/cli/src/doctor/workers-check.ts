import { type Check, check } from './check.js';
import { grouped } from './format.js';
import { isUnreadable, type Unreadable, type WorkerIds } from './probe.js';

/** Share of worker ids taken above which starting more generators is close to WORKERS_EXHAUSTED. */
export const workersWarnShare = 0.8;

/**
 * Live leases in `sheaf.workers` against the worker ids the layout has (its shard field:
 * SnowflakeGenerator's default `maxWorker`), less the values databases hold there, which leases
 * skip. None left is a failure: the next generator's start raises WORKERS_EXHAUSTED.
 */
export function workersCheck(workers: WorkerIds | Unreadable, shardBits: number): Check {
  if (isUnreadable(workers)) return check('workers', 'warn', `cannot read the worker leases: ${workers.unreadable}`);
  const { leased, heldByDatabases } = workers;
  const capacity = 2 ** shardBits;
  const taken = leased + heldByDatabases;
  const percent = Math.round((taken / capacity) * 1000) / 10;
  const byDatabases = heldByDatabases > 0 ? `, ${grouped(heldByDatabases)} held by databases` : '';
  const message = `${grouped(leased)} of ${grouped(capacity)} worker ids leased${byDatabases} (${percent} %)`;
  const details = { live: leased, heldByDatabases, capacity, percent };
  if (taken >= capacity) {
    return check('workers', 'fail', `${message}: a new SnowflakeGenerator gets none`, {
      code: 'WORKERS_EXHAUSTED',
      details,
    });
  }
  if (taken / capacity > workersWarnShare) {
    return check(
      'workers',
      'warn',
      `${message}, above ${workersWarnShare * 100} %: stop idle generators or use more shard bits`,
      { details },
    );
  }
  return check('workers', 'ok', message, { details });
}
