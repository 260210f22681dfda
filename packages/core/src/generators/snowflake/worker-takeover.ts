import type { SqlExecutor } from '../../executor.js';
import type { Clock } from '../shared/clock.js';
import { clockBehindWorker } from './errors.js';
import type { SnowflakeSettings } from './options.js';
import { type Renewal, WorkerLease } from './worker-lease.js';

/** A worker id ready to issue from: this clock is past its recorded timestamp, a first bound is recorded. */
export interface TakenWorker {
  readonly lease: WorkerLease;
  readonly renewal: Renewal;
}

/**
 * Leases a worker id, waits (up to `maxStartWaitMs`) until this clock is past the timestamp recorded
 * for it, and records the first bound; no id may be issued before that bound went through. A worker
 * id taken over after expiry normally needs no wait: its holder's last bound was its clock plus the
 * lease, about when the database let the lease expire.
 */
export async function takeWorker(executor: SqlExecutor, settings: SnowflakeSettings): Promise<TakenWorker> {
  const lease = await WorkerLease.acquire(executor, settings.lease);
  try {
    await passRecorded(lease, settings.lease.clock, settings.maxStartWaitMs);
    return { lease, renewal: await lease.renew(lease.recordedMs) };
  } catch (error) {
    // Nothing was issued: the recorded value stands, also over a first bound that went through unseen.
    await lease.release(lease.recordedMs).catch(() => undefined);
    throw error;
  }
}

async function passRecorded(lease: WorkerLease, clock: Clock, maxStartWaitMs: number): Promise<void> {
  const recorded = lease.recordedMs;
  const giveUpAt = clock.monotonic() + maxStartWaitMs + 10;
  for (;;) {
    const now = clock.now();
    if (now > recorded) return;
    if (recorded - now > maxStartWaitMs || clock.monotonic() > giveUpAt) {
      throw clockBehindWorker(lease.workerId, recorded, now, maxStartWaitMs);
    }
    // A timer that keeps the process alive: start() is being awaited.
    await new Promise((resolve) => setTimeout(resolve, recorded - now + 1));
  }
}
