import { isSheafError, type SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import type { Clock } from './clock.js';
import { type DialectSql, sqlFor } from './dialect-sql.js';
import { int8 } from './id-kind.js';
import { pause, withTimeout } from './timers.js';

interface LeaseQueries {
  readonly lease: string;
  readonly heartbeat: string;
  readonly release: string;
}

/** The SQL of worker leases per dialect: lease → (worker_id, lease_token, last_timestamp_ms). */
const leaseSql: DialectSql<LeaseQueries> = {
  postgres: {
    lease:
      'select worker_id, lease_token::text as lease_token, last_timestamp_ms::text as last_timestamp_ms ' +
      'from sheaf.lease_worker($1, $2::integer, $3::integer)',
    heartbeat: 'select sheaf.heartbeat_worker($1::integer, $2::uuid, $3::bigint, $4::integer) as expires_at',
    release: 'select sheaf.release_worker($1::integer, $2::uuid, $3::bigint) as released',
  },
  // Autocommit: each statement of the lease procedure commits, so no row lock outlives the call.
  mysql: {
    lease: 'call sheaf_lease_worker(?, ?, ?)',
    heartbeat: 'select sheaf_heartbeat_worker(?, ?, ?, ?) as expires_ms',
    release: 'select sheaf_release_worker(?, ?, ?) as released',
  },
};

/** How a lease is taken and kept. */
export interface LeaseSettings {
  readonly holder: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly safetyMarginMs: number;
  readonly maxWorker: number;
  readonly clock: Clock;
}

/** What the lease tells its generator, from the heartbeat loop. */
export interface LeaseEvents {
  /** How far the holder's clock got: recorded with every heartbeat. */
  lastTimestampMs(): number;
  /** A heartbeat went through: ids may be issued until `deadline` (monotonic ms). */
  renewed(deadline: number): void;
  /** The database refused a heartbeat (LEASE_LOST): another holder may own the worker id now. */
  lost(error: SheafError): void;
}

/**
 * A worker id leased from the database's workers table, kept by heartbeats. The deadline is the
 * monotonic time a renewal was *sent* plus the lease, less a margin: the database set its expiry
 * after receiving the query, so the local deadline always falls before the database's expiry.
 */
export class WorkerLease {
  /** Failed heartbeats since the last one that went through. */
  failures = 0;
  lastError: unknown;
  private readonly stop = new AbortController();

  private constructor(
    private readonly executor: SqlExecutor,
    private readonly sql: LeaseQueries,
    private readonly settings: LeaseSettings,
    readonly workerId: number,
    readonly token: string,
    /** The highest timestamp recorded for this worker id by earlier holders. */
    readonly recordedMs: number,
    /** Monotonic ms up to which ids may be issued. */
    readonly firstDeadline: number,
  ) {}

  /** Leases the lowest free or expired worker id (WORKERS_EXHAUSTED when there is none). */
  static async acquire(executor: SqlExecutor, settings: LeaseSettings): Promise<WorkerLease> {
    const sql = sqlFor(executor, leaseSql, 'SnowflakeGenerator');
    const sentAt = settings.clock.monotonic();
    const rows = await executor.query<{ worker_id: unknown; lease_token: unknown; last_timestamp_ms: unknown }>(
      sql.lease,
      [settings.holder, settings.leaseMs, settings.maxWorker],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('lease_worker returned no row');
    const deadline = sentAt + settings.leaseMs - settings.safetyMarginMs;
    const recorded = Number(int8(row.last_timestamp_ms, 'last_timestamp_ms'));
    return new WorkerLease(executor, sql, settings, Number(row.worker_id), String(row.lease_token), recorded, deadline);
  }

  /** Starts heartbeating in the background (timers unref'd); `release()` stops it. */
  keepAlive(events: LeaseEvents): void {
    void this.beat(events);
  }

  /** Stops heartbeats and frees the worker id, recording `lastTimestampMs` for the next holder. */
  async release(lastTimestampMs: number): Promise<boolean> {
    this.stop.abort();
    const [row] = await this.executor.query<{ released: unknown }>(this.sql.release, [
      this.workerId,
      this.token,
      lastTimestampMs,
    ]);
    // PostgreSQL answers a boolean, MySQL a 1 or 0.
    return row?.released === true || Number(row?.released) === 1;
  }

  private async beat(events: LeaseEvents): Promise<void> {
    const { clock, heartbeatMs, leaseMs, safetyMarginMs } = this.settings;
    const { signal } = this.stop;
    while (!signal.aborted) {
      await pause(heartbeatMs, signal);
      if (signal.aborted) return;
      const sentAt = clock.monotonic();
      try {
        const query = this.executor.query(this.sql.heartbeat, [
          this.workerId,
          this.token,
          events.lastTimestampMs(),
          leaseMs,
        ]);
        // A heartbeat that hangs must not hold up the next one; its late answer is simply ignored.
        await withTimeout(query, Math.max(heartbeatMs, 1000), 'the heartbeat');
        if (signal.aborted) return;
        this.failures = 0;
        this.lastError = undefined;
        events.renewed(sentAt + leaseMs - safetyMarginMs);
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
}
