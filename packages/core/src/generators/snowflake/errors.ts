import { SheafError } from '../../errors.js';
import { formatTime } from '../../format.js';
import { messageOf } from '../shared/message-of.js';
import type { WorkerLease } from './worker-lease.js';

/** The clock is behind the last id by more than `maxBackwardsMs`, or did not get past it in time. */
export function clockMovedBackwards(workerId: number, lastMs: number, nowMs: number, maxBackwardsMs: number) {
  const behind = lastMs - nowMs;
  const what =
    behind > maxBackwardsMs
      ? `moved backwards by ${behind} ms, more than maxBackwardsMs ${maxBackwardsMs}`
      : `did not get past ${formatTime(lastMs)} in time`;
  return new SheafError(
    'CLOCK_MOVED_BACKWARDS',
    `worker ${workerId}: the clock ${what} (last id at ${formatTime(lastMs)}, clock at ` +
      `${formatTime(nowMs)}); no ids until it catches up`,
    { details: { workerId, lastMs, nowMs, maxBackwardsMs } },
  );
}

/** No heartbeat went through for `leaseMs − safetyMarginMs`. */
export function leaseExpired(lease: WorkerLease, leaseMs: number): SheafError {
  const last = lease.lastError;
  return new SheafError(
    'LEASE_EXPIRED',
    `worker ${lease.workerId}: no heartbeat went through in time (lease ${leaseMs} ms; ` +
      `${lease.failures} failed, last: ${messageOf(last)}); ` +
      'stopped issuing before the lease could expire',
    { cause: last, details: { workerId: lease.workerId, leaseMs, failures: lease.failures } },
  );
}

/** The clock is past the bound the last heartbeat recorded: an id now could be one a successor issues. */
export function pastBound(lease: WorkerLease, boundMs: number, nowMs: number): SheafError {
  return new SheafError(
    'LEASE_EXPIRED',
    `worker ${lease.workerId}: the clock (${formatTime(nowMs)}) is ${nowMs - boundMs} ms past the bound the ` +
      `lease recorded (${formatTime(boundMs)}); no ids until a heartbeat records a later one`,
    { cause: lease.lastError, details: { workerId: lease.workerId, boundMs, nowMs, failures: lease.failures } },
  );
}

/** The worker id's recorded timestamp is further ahead of this clock than `maxStartWaitMs`. */
export function clockBehindWorker(workerId: number, recordedMs: number, nowMs: number, maxStartWaitMs: number) {
  return new SheafError(
    'CLOCK_BEHIND_WORKER',
    `worker ${workerId} was last used at ${formatTime(recordedMs)}, ${recordedMs - nowMs} ms ahead of this clock ` +
      `(${formatTime(nowMs)}), more than maxStartWaitMs ${maxStartWaitMs}: refusing to start, its ids could repeat`,
    { details: { workerId, recordedMs, nowMs, maxStartWaitMs } },
  );
}
