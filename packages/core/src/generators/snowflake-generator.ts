import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { formatTime } from '../format.js';
import { idFloor } from '../id.js';
import type { Layout } from '../layout.js';
import { defaultLayout, layoutByName, type PresetName } from '../presets.js';
import { type Clock, systemClock } from './clock.js';
import { type IdKind, type IdOf, idKind } from './id-kind.js';
import { messageOf } from './message-of.js';
import { intOption } from './options.js';
import { WorkerLease } from './worker-lease.js';

/**
 * What {@link SnowflakeGenerator.start} takes; every option has a default.
 *
 * @example
 * const options: SnowflakeGeneratorOptions = { layout: 'twitter', leaseMs: 60_000, heartbeatMs: 5_000 };
 */
export interface SnowflakeGeneratorOptions<K extends IdKind = 'bigint'> {
  /** A preset name or a layout from `defineLayout`; the worker id is its shard field (default `sheaf`). */
  readonly layout?: Layout | PresetName;
  /** `'bigint'` (default) or `'number'`, which needs a layout whose ids stay below 2^53 (`js53`). */
  readonly ids?: K;
  /** Highest worker id to lease (default: the layout's largest shard). */
  readonly maxWorker?: number;
  /** Shown in `sheaf.workers.holder` (default `pid <pid>` and the host name when known). */
  readonly holder?: string;
  /** Lease length in ms (default 30,000). */
  readonly leaseMs?: number;
  /** Heartbeat period in ms (default 3,000). */
  readonly heartbeatMs?: number;
  /** Ids stop this long before the lease would expire without a heartbeat (default 10 % of leaseMs). */
  readonly safetyMarginMs?: number;
  /** A backwards clock step up to this is waited out; a larger one throws (default 5 ms). */
  readonly maxBackwardsMs?: number;
  /** Wall clock of the ids, monotonic clock of the lease (default {@link systemClock}). */
  readonly clock?: Clock;
}

/**
 * What {@link SnowflakeGenerator.stats} reports.
 *
 * @example
 * const { workerId, leaseLeftMs }: SnowflakeStats = generator.stats();
 */
export interface SnowflakeStats {
  readonly workerId: number;
  /** Unix ms of the last id issued. */
  readonly lastTimestampMs: number;
  /** Ms until the generator stops issuing unless a heartbeat goes through (negative: stopped). */
  readonly leaseLeftMs: number;
  /** Failed heartbeats since the last one that went through. */
  readonly heartbeatFailures: number;
  /** Why `next()` throws, when it does for good (closed, lease lost). */
  readonly stopped: string | undefined;
}

/** A clock that does not reach the next millisecond within this long is treated as stuck. */
const stuckClockMs = 1000;
/** Bigint low parts are precomputed per sequence up to this many sequence bits. */
const lowTableBits = 16;

/**
 * Leaf-snowflake with the database in place of ZooKeeper: ids made in memory with a worker id
 * leased from `sheaf.workers`, kept by heartbeats. It never issues a duplicate rather than keep
 * going: it stops when its lease is lost or could not be renewed in time (fencing), refuses to start
 * when the worker id was last used at a time ahead of its clock, waits out a small backwards clock
 * step and throws on a larger one, and waits for the next millisecond when the sequence is used up.
 *
 * @example
 * const snowflake = await SnowflakeGenerator.start(executor, { layout: 'sheaf' });
 * const id = snowflake.next(); // bigint, synchronous
 * await snowflake.close();
 */
export class SnowflakeGenerator<K extends IdKind = 'bigint'> {
  readonly workerId: number;
  readonly layout: Layout;
  private lastMs: number;
  private sequence: number;
  private readonly maxSequence: number;
  private timeBig = 0n;
  private timeNum = 0;
  private readonly number: boolean;
  /** The worker field shifted into place, as a number (Number mode) and a bigint. */
  private readonly workerNum: number;
  private readonly workerBig: bigint;
  private readonly lows: readonly bigint[] | undefined;
  /** Set for good when closed or when the lease was lost: next() throws it. */
  private failure: SheafError | undefined;
  /** Monotonic ms after which no id may be issued until a heartbeat extends it. */
  private deadline: number;

  private constructor(
    private readonly lease: WorkerLease,
    private readonly clock: Clock,
    private readonly maxBackwardsMs: number,
    private readonly leaseMs: number,
    layout: Layout,
    kind: IdKind,
  ) {
    this.layout = layout;
    this.workerId = lease.workerId;
    this.number = kind === 'number';
    this.maxSequence = layout.maxSequence;
    // The first id comes after the worker's recorded timestamp: a full sequence forces the next ms.
    this.lastMs = lease.recordedMs;
    this.sequence = layout.maxSequence;
    this.deadline = lease.firstDeadline;
    this.workerBig = BigInt(lease.workerId) << layout.shardShift;
    this.workerNum = Number(this.workerBig);
    this.lows =
      layout.sequenceBits <= lowTableBits
        ? Array.from({ length: layout.maxSequence + 1 }, (_, seq) => this.workerBig | BigInt(seq))
        : undefined;
  }

  /**
   * Leases a worker id and starts heartbeating. Throws `WORKERS_EXHAUSTED` when every worker id is
   * leased and `CLOCK_BEHIND_WORKER` when the id was last used at a time ahead of this clock.
   */
  static async start<K extends IdKind = 'bigint'>(
    executor: SqlExecutor,
    options: SnowflakeGeneratorOptions<K> = {},
  ): Promise<SnowflakeGenerator<K>> {
    const layout =
      typeof options.layout === 'string' ? layoutByName(options.layout) : (options.layout ?? defaultLayout);
    const kind = idKind(options.ids ?? 'bigint');
    if (kind === 'number' && !layout.safeIntegerIds) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `ids: 'number' needs a layout whose ids stay below 2^53, not "${layout.name}"`,
      );
    }
    const leaseMs = intOption('leaseMs', options.leaseMs, 30_000, 100, 2 ** 31 - 1);
    const safetyMarginMs = intOption('safetyMarginMs', options.safetyMarginMs, Math.ceil(leaseMs / 10), 0, leaseMs - 1);
    const heartbeatMs = intOption('heartbeatMs', options.heartbeatMs, 3_000, 1, leaseMs - safetyMarginMs - 1);
    const clock = options.clock ?? systemClock;
    const settings = {
      holder: options.holder ?? defaultHolder(),
      leaseMs,
      heartbeatMs,
      safetyMarginMs,
      maxWorker: intOption('maxWorker', options.maxWorker, layout.maxShard, 0, layout.maxShard),
      clock,
    };
    const maxBackwardsMs = intOption('maxBackwardsMs', options.maxBackwardsMs, 5, 0, 60_000);
    const lease = await WorkerLease.acquire(executor, settings);
    const now = clock.now();
    if (lease.recordedMs - now > maxBackwardsMs) {
      await lease.release(lease.recordedMs).catch(() => false);
      throw new SheafError(
        'CLOCK_BEHIND_WORKER',
        `worker ${lease.workerId} was last used at ${formatTime(lease.recordedMs)}, ${lease.recordedMs - now} ms ` +
          `ahead of this clock (${formatTime(now)}): refusing to start, its ids could repeat`,
        { details: { workerId: lease.workerId, recordedMs: lease.recordedMs, nowMs: now, maxBackwardsMs } },
      );
    }
    const generator = new SnowflakeGenerator<K>(lease, clock, maxBackwardsMs, leaseMs, layout, kind);
    lease.keepAlive({
      lastTimestampMs: () => Math.max(generator.lastMs, clock.now()),
      renewed: (deadline) => {
        generator.deadline = Math.max(generator.deadline, deadline);
      },
      lost: (error) => {
        generator.failure ??= error;
      },
    });
    return generator;
  }

  /** The next id, synchronously. Throws rather than ever return a duplicate. */
  next(): IdOf<K> {
    if (this.failure !== undefined) throw this.failure;
    const now = this.clock.now();
    if (now === this.lastMs && this.sequence < this.maxSequence) return this.compose(++this.sequence);
    return this.advance(now);
  }

  /** Worker id, last timestamp and how long the lease lets the generator go on without a heartbeat. */
  stats(): SnowflakeStats {
    return {
      workerId: this.workerId,
      lastTimestampMs: this.lastMs,
      leaseLeftMs: Math.round(this.deadline - this.clock.monotonic()),
      heartbeatFailures: this.lease.failures,
      stopped: this.failure?.message,
    };
  }

  /** Stops heartbeats and releases the worker id (recording the last timestamp); idempotent. */
  async close(): Promise<void> {
    if (this.failure?.code === 'GENERATOR_CLOSED') return;
    this.failure = new SheafError('GENERATOR_CLOSED', `snowflake generator of worker ${this.workerId} is closed`, {
      details: { workerId: this.workerId },
    });
    // A release that fails is harmless: the lease expires by itself.
    await this.lease.release(Math.max(this.lastMs, this.clock.now())).catch(() => false);
  }

  private compose(sequence: number): IdOf<K> {
    if (this.number) return (this.timeNum + this.workerNum + sequence) as IdOf<K>;
    const lows = this.lows;
    return (this.timeBig + (lows !== undefined ? lows[sequence]! : this.workerBig | BigInt(sequence))) as IdOf<K>;
  }

  /** The slow path: a backwards step, a used-up sequence or a new millisecond. */
  private advance(now: number): IdOf<K> {
    if (now < this.lastMs) now = this.waitBackwards(now);
    if (now === this.lastMs) {
      if (this.sequence < this.maxSequence) return this.compose(++this.sequence);
      now = this.waitPast(this.lastMs);
    }
    if (this.clock.monotonic() > this.deadline) throw this.expired();
    // idFloor refuses times before the epoch or past the layout's end.
    this.timeBig = idFloor(now, this.layout);
    this.timeNum = Number(this.timeBig);
    this.lastMs = now;
    this.sequence = 0;
    return this.compose(0);
  }

  /** Spins until the clock is back at the last id's millisecond, if the step is small enough. */
  private waitBackwards(now: number): number {
    const limit = this.clock.monotonic() + 2 * (this.lastMs - now) + 10;
    while (now < this.lastMs) {
      if (this.lastMs - now > this.maxBackwardsMs || this.clock.monotonic() > limit) throw this.backwards(now);
      now = this.clock.now();
    }
    return now;
  }

  /** Spins until the clock passes `ms` (the sequence of `ms` is used up). */
  private waitPast(ms: number): number {
    const limit = this.clock.monotonic() + stuckClockMs;
    for (;;) {
      const now = this.clock.now();
      if (now > ms) return now;
      if (ms - now > this.maxBackwardsMs || this.clock.monotonic() > limit) throw this.backwards(now);
    }
  }

  private backwards(now: number): SheafError {
    const behind = this.lastMs - now;
    const what =
      behind > this.maxBackwardsMs
        ? `moved backwards by ${behind} ms, more than maxBackwardsMs ${this.maxBackwardsMs}`
        : `did not get past ${formatTime(this.lastMs)} in time`;
    return new SheafError(
      'CLOCK_MOVED_BACKWARDS',
      `worker ${this.workerId}: the clock ${what} (last id at ${formatTime(this.lastMs)}, clock at ` +
        `${formatTime(now)}); no ids until it catches up`,
      { details: { workerId: this.workerId, lastMs: this.lastMs, nowMs: now, maxBackwardsMs: this.maxBackwardsMs } },
    );
  }

  private expired(): SheafError {
    const last = this.lease.lastError;
    return new SheafError(
      'LEASE_EXPIRED',
      `worker ${this.workerId}: no heartbeat went through in time (lease ${this.leaseMs} ms; ` +
        `${this.lease.failures} failed, last: ${messageOf(last)}); ` +
        'stopped issuing before the lease could expire',
      { cause: last, details: { workerId: this.workerId, leaseMs: this.leaseMs, failures: this.lease.failures } },
    );
  }
}

function defaultHolder(): string {
  const host = globalThis.process?.env?.HOSTNAME;
  const pid = globalThis.process?.pid;
  return `pid ${pid ?? '?'}${host ? ` on ${host}` : ''}`;
}
