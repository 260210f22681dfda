import { certificationConflict } from '../../certification-conflict.js';
import { isSheafError, SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';
import type { Clock } from '../shared/clock.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import { int8 } from '../shared/id-kind.js';
import { pause, withTimeout } from '../shared/timers.js';

interface LeaseQueries {
  readonly lease: string;
  /** Leases one named worker id: (holder, leaseMs, workerId) → the row of `lease`. */
  readonly leaseId: string;
  readonly heartbeat: string;
  readonly release: string;
}

/**
 * The SQL of worker leases per dialect: lease → (worker_id, lease_token, last_timestamp_ms).
 * Release is `close_worker` rather than `release_worker`, which only ever raises the recorded
 * timestamp: the heartbeats record a bound ahead of the clock, and a clean release must be able to
 * bring it back down to the last millisecond actually issued (the token proves ownership).
 */
const leaseSql: DialectSql<LeaseQueries> = {
  postgres: {
    lease:
      'select worker_id, lease_token::text as lease_token, last_timestamp_ms::text as last_timestamp_ms ' +
      'from sheaf.lease_worker($1, $2::integer, $3::integer)',
    leaseId:
      'select worker_id, lease_token::text as lease_token, last_timestamp_ms::text as last_timestamp_ms ' +
      'from sheaf.lease_worker_id($1, $2::integer, $3::integer)',
    heartbeat: 'select sheaf.heartbeat_worker($1::integer, $2::uuid, $3::bigint, $4::integer) as expires_at',
    release: 'select sheaf.close_worker($1::integer, $2::uuid, $3::bigint) as closed',
  },
  // Autocommit: each statement of the lease procedure commits, so no row lock outlives the call.
  mysql: {
    lease: 'call sheaf_lease_worker(?, ?, ?)',
    leaseId: 'call sheaf_lease_worker_id(?, ?, ?)',
    heartbeat: 'select sheaf_heartbeat_worker(?, ?, ?, ?) as expires_ms',
    release: 'select sheaf_close_worker(?, ?, ?) as closed',
  },
};

/** How a lease is taken and kept. */
export interface LeaseSettings {
  readonly holder: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly safetyMarginMs: number;
  readonly maxWorker: number;
  /** The one worker id to lease (SHARD_TAKEN when another holder has it); otherwise the lowest free one. */
  readonly workerId: number | undefined;
  readonly clock: Clock;
}

/** What a heartbeat that went through allows: ids up to `boundMs` (wall) until `deadline` (monotonic). */
export interface Renewal {
  readonly deadline: number;
  readonly boundMs: number;
}

/** What the lease tells its generator, from the heartbeat loop. */
export interface LeaseEvents {
  /** The last millisecond issued: the bound recorded never falls below it. */
  lastTimestampMs(): number;
  /** A heartbeat went through. */
  renewed(renewal: Renewal): void;
  /** The database refused a heartbeat (LEASE_LOST): another holder may own the worker id now. */
  lost(error: SheafError): void;
}

/**
 * A worker id leased from the database's workers table, kept by heartbeats. Each heartbeat records
 * a bound, the holder's clock plus the lease: the holder issues no id above the last bound that
 * went through, so whoever takes the worker id over after expiry, and starts above the recorded
 * value, cannot repeat one of its ids, whatever either clock did. The deadline (monotonic time the
 * renewal was *sent*, plus the lease, less the margin) stops the holder before the database's
 * expiry, which it set after receiving the query.
 */
export class WorkerLease {
  /** Failed heartbeats since the last one that went through. */
  failures = 0;
  lastError: unknown;
  private readonly stop = new AbortController();
  /** Aborted to cut the current pause between heartbeats short. */
  private wake = new AbortController();

  private constructor(
    private readonly executor: SqlExecutor,
    private readonly sql: LeaseQueries,
    private readonly settings: LeaseSettings,
    readonly workerId: number,
    readonly token: string,
    /** The highest timestamp recorded for this worker id by earlier holders. */
    readonly recordedMs: number,
  ) {}

  /**
   * Leases the lowest worker id that no database and no live lease holds (WORKERS_EXHAUSTED when
   * there is none), or exactly `settings.workerId` (SHARD_TAKEN naming its holder).
   */
  static async acquire(executor: SqlExecutor, settings: LeaseSettings): Promise<WorkerLease> {
    const sql = sqlFor(executor, leaseSql, 'SnowflakeGenerator');
    const [query, last] =
      settings.workerId === undefined ? [sql.lease, settings.maxWorker] : [sql.leaseId, settings.workerId];
    const rows = await leaseRetrying(() =>
      executor.query<{ worker_id: unknown; lease_token: unknown; last_timestamp_ms: unknown }>(query, [
        settings.holder,
        settings.leaseMs,
        last,
      ]),
    );
    const row = rows[0];
    if (row === undefined) {
      throw new SheafError(
        'WORKERS_EXHAUSTED',
        `lease_worker returned no row for holder ${JSON.stringify(settings.holder)} (worker ids 0 to ` +
          `${settings.maxWorker}): no worker id was leased`,
        { details: { holder: settings.holder, maxWorker: settings.maxWorker, rows: rows.length } },
      );
    }
    const recorded = Number(int8(row.last_timestamp_ms, 'last_timestamp_ms'));
    return new WorkerLease(executor, sql, settings, Number(row.worker_id), String(row.lease_token), recorded);
  }

  /**
   * One heartbeat, recording the bound `max(lastTimestampMs, now) + leaseMs`; throws when it does not
   * go through (LEASE_LOST when the database refused it).
   */
  async renew(lastTimestampMs: number): Promise<Renewal> {
    const { clock, heartbeatMs, leaseMs, safetyMarginMs } = this.settings;
    const sentAt = clock.monotonic();
    const boundMs = Math.max(lastTimestampMs, clock.now()) + leaseMs;
    const query = this.executor.query(this.sql.heartbeat, [this.workerId, this.token, boundMs, leaseMs]);
    // A heartbeat that hangs must not hold up the next one; its late answer is simply ignored.
    await withTimeout(query, Math.max(heartbeatMs, 1000), 'the heartbeat');
    return { deadline: sentAt + leaseMs - safetyMarginMs, boundMs };
  }

  /** Starts heartbeating in the background (timers unref'd); `release()` stops it. */
  keepAlive(events: LeaseEvents): void {
    void this.beat(events);
  }

  /**
   * Sends the next heartbeat now instead of at the end of the current period, unless heartbeats are
   * failing: then the period stands, so a caller retrying `next()` cannot hammer a database that is down.
   */
  renewSoon(): void {
    if (this.failures === 0) this.wake.abort();
  }

  /**
   * Stops heartbeats and frees the worker id, recording `lastIssuedMs` for the next holder: it must
   * be the last millisecond issued under this lease (or the recorded value when none was).
   */
  async release(lastIssuedMs: number): Promise<void> {
    this.stop.abort();
    await this.executor.query(this.sql.release, [this.workerId, this.token, lastIssuedMs]);
  }

  private async beat(events: LeaseEvents): Promise<void> {
    const { signal } = this.stop;
    while (!signal.aborted) {
      await this.pause();
      if (signal.aborted) return;
      try {
        const renewal = await this.renew(events.lastTimestampMs());
        if (signal.aborted) return;
        this.failures = 0;
        this.lastError = undefined;
        events.renewed(renewal);
      } catch (error) {
        if (signal.aborted) return;
        if (isSheafError(error, 'LEASE_LOST')) {
          this.stop.abort();
          events.lost(error);
          return;
        }
        this.failures++;
        this.lastError = error;
      }
    }
  }

  /** Waits one heartbeat period, or less when `renewSoon()` or `release()` is called meanwhile. */
  private async pause(): Promise<void> {
    const wake = new AbortController();
    this.wake = wake;
    const stop = () => wake.abort();
    this.stop.signal.addEventListener('abort', stop, { once: true });
    await pause(this.settings.heartbeatMs, wake.signal);
    this.stop.signal.removeEventListener('abort', stop);
  }
}

/** How often a lease that lost certification (Galera: another node took a row at once) is asked again. */
const leaseAttempts = 8;

/**
 * Each statement of the lease procedures commits on its own (autocommit), so one that lost to a
 * concurrent lease on another Galera node, or deadlocked on one server, took nothing: ask again,
 * after a pause that grows and is spread so that the racers do not meet again.
 */
async function leaseRetrying<T>(lease: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lease();
    } catch (error) {
      if (attempt >= leaseAttempts || !certificationConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
