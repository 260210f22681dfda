import { SheafError } from '../../errors.js';
import { type Database, executorOf } from '../../executors/executor-of.js';
import { idFloor } from '../../id.js';
import type { Layout } from '../../layout.js';
import type { Clock } from '../shared/clock.js';
import type { IdKind, IdOf } from '../shared/id-kind.js';
import { clockMovedBackwards, leaseExpired, pastBound } from './errors.js';
import { type SnowflakeGeneratorOptions, snowflakeSettings } from './options.js';
import type { Renewal, WorkerLease } from './worker-lease.js';
import { takeWorker } from './worker-takeover.js';

export type { SnowflakeGeneratorOptions } from './options.js';

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
  /** Unix ms recorded by the last heartbeat that went through: no id carries a later time until the next. */
  readonly boundMs: number;
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
 * Within a millisecond the deadline is checked every this many ids: the fast path stays a single
 * comparison, and a wall clock that stalls cannot carry a fenced holder past its deadline.
 */
const checkEveryIds = 256;

/** Passed by {@link SnowflakeGenerator.start} alone: the constructor is private in TypeScript only. */
const startKey = Symbol('SnowflakeGenerator.start');

/**
 * Leaf-snowflake with the database in place of ZooKeeper: ids made in memory with a worker id
 * leased from `sheaf.workers`, kept by heartbeats. It never issues a duplicate rather than keep
 * going: every heartbeat records a bound (its clock plus the lease) and no id is issued above the
 * last bound that went through, so a successor that starts above the recorded value cannot repeat
 * one, whatever the clocks did; it stops when its lease is lost or could not be renewed in time
 * (fencing), refuses to start when the worker id was last used further ahead of its clock than
 * `maxStartWaitMs` (and waits when it is less), waits out a small backwards clock step and throws on
 * a larger one, and waits for the next millisecond when the sequence is used up.
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
  /** The fast path serves sequences up to this one; the next goes through the deadline check. */
  private checkAt: number;
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
  /** Wall ms above which no id may be issued until a heartbeat records a later bound. */
  private boundMs: number;

  private constructor(
    key: typeof startKey,
    private readonly lease: WorkerLease,
    private readonly clock: Clock,
    private readonly maxBackwardsMs: number,
    private readonly leaseMs: number,
    renewal: Renewal,
    layout: Layout,
    kind: IdKind,
  ) {
    if (key !== startKey) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        'SnowflakeGenerator is started with `await SnowflakeGenerator.start(db, options)`, not with `new`: ' +
          'start() leases a worker id from the database first',
        { details: { api: 'new SnowflakeGenerator' } },
      );
    }
    this.layout = layout;
    this.workerId = lease.workerId;
    this.number = kind === 'number';
    this.maxSequence = layout.maxSequence;
    // The first id comes after the worker's recorded timestamp: a full sequence forces the next ms.
    this.lastMs = lease.recordedMs;
    this.sequence = layout.maxSequence;
    this.checkAt = layout.maxSequence;
    this.deadline = renewal.deadline;
    this.boundMs = renewal.boundMs;
    this.workerBig = BigInt(lease.workerId) << layout.shardShift;
    this.workerNum = Number(this.workerBig);
    this.lows =
      layout.sequenceBits <= lowTableBits
        ? Array.from({ length: layout.maxSequence + 1 }, (_, seq) => this.workerBig | BigInt(seq))
        : undefined;
  }

  /**
   * Leases a worker id and starts heartbeating. Throws `WORKERS_EXHAUSTED` when every worker id is
   * leased and `CLOCK_BEHIND_WORKER` when the id was last used further ahead of this clock than
   * `maxStartWaitMs`.
   */
  static async start<K extends IdKind = 'bigint'>(
    db: Database,
    options: SnowflakeGeneratorOptions<K> = {},
  ): Promise<SnowflakeGenerator<K>> {
    const executor = executorOf(db, 'SnowflakeGenerator.start');
    const settings = snowflakeSettings(options);
    const { clock, leaseMs } = settings.lease;
    const { lease, renewal } = await takeWorker(executor, settings);
    const generator = new SnowflakeGenerator<K>(
      startKey,
      lease,
      clock,
      settings.maxBackwardsMs,
      leaseMs,
      renewal,
      settings.layout,
      settings.kind,
    );
    lease.keepAlive({
      lastTimestampMs: () => generator.lastMs,
      renewed: ({ deadline, boundMs }) => {
        generator.deadline = Math.max(generator.deadline, deadline);
        generator.boundMs = Math.max(generator.boundMs, boundMs);
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
    if (now === this.lastMs && this.sequence < this.checkAt) return this.compose(++this.sequence);
    return this.advance(now);
  }

  /** Worker id, last timestamp and how long the lease lets the generator go on without a heartbeat. */
  stats(): SnowflakeStats {
    return {
      workerId: this.workerId,
      lastTimestampMs: this.lastMs,
      boundMs: this.boundMs,
      leaseLeftMs: Math.round(this.deadline - this.clock.monotonic()),
      heartbeatFailures: this.lease.failures,
      stopped: this.failure?.message,
    };
  }

  /**
   * Stops heartbeats and releases the worker id, recording the last millisecond issued (not the
   * bound), so a restart on it need not wait; idempotent.
   */
  async close(): Promise<void> {
    if (this.failure?.code === 'GENERATOR_CLOSED') return;
    this.failure = new SheafError('GENERATOR_CLOSED', `snowflake generator of worker ${this.workerId} is closed`, {
      details: { workerId: this.workerId },
    });
    // A release that fails is harmless: the lease expires by itself, the bound it recorded stands.
    await this.lease.release(this.lastMs).catch(() => undefined);
  }

  private compose(sequence: number): IdOf<K> {
    if (this.number) return (this.timeNum + this.workerNum + sequence) as IdOf<K>;
    const lows = this.lows;
    return (this.timeBig + (lows !== undefined ? lows[sequence]! : this.workerBig | BigInt(sequence))) as IdOf<K>;
  }

  /** The slow path: a deadline check within the ms, a backwards step, a used-up sequence or a new ms. */
  private advance(now: number): IdOf<K> {
    if (now < this.lastMs) now = this.waitBackwards(now);
    if (now === this.lastMs) {
      if (this.sequence < this.maxSequence) {
        this.checkDeadline();
        this.checkAt = Math.min(this.maxSequence, this.sequence + checkEveryIds);
        return this.compose(++this.sequence);
      }
      now = this.waitPast(this.lastMs);
    }
    this.checkDeadline();
    if (now > this.boundMs) {
      // Normally a forward clock step since the last heartbeat: the next one records a later bound.
      this.lease.renewSoon();
      throw pastBound(this.lease, this.boundMs, now);
    }
    // idFloor refuses times before the epoch or past the layout's end.
    this.timeBig = idFloor(now, this.layout);
    this.timeNum = Number(this.timeBig);
    this.lastMs = now;
    this.sequence = 0;
    this.checkAt = Math.min(this.maxSequence, checkEveryIds);
    return this.compose(0);
  }

  private checkDeadline(): void {
    if (this.clock.monotonic() > this.deadline) throw leaseExpired(this.lease, this.leaseMs);
  }

  /** Spins until the clock is back at the last id's millisecond, if the step is small enough. */
  private waitBackwards(now: number): number {
    const limit = this.clock.monotonic() + 2 * (this.lastMs - now) + 10;
    while (now < this.lastMs) {
      if (this.lastMs - now > this.maxBackwardsMs) {
        throw clockMovedBackwards(this.workerId, this.lastMs, now, this.maxBackwardsMs);
      }
      // The limit before the clock: a spin descheduled past its limit sees where the clock got to.
      const late = this.clock.monotonic() > limit;
      now = this.clock.now();
      if (late && now < this.lastMs) throw clockMovedBackwards(this.workerId, this.lastMs, now, this.maxBackwardsMs);
    }
    return now;
  }

  /** Spins until the clock passes `ms` (the sequence of `ms` is used up). */
  private waitPast(ms: number): number {
    const limit = this.clock.monotonic() + stuckClockMs;
    for (;;) {
      // The limit before the clock, as in waitBackwards.
      const late = this.clock.monotonic() > limit;
      const now = this.clock.now();
      if (now > ms) return now;
      if (ms - now > this.maxBackwardsMs || late) {
        throw clockMovedBackwards(this.workerId, this.lastMs, now, this.maxBackwardsMs);
      }
    }
  }
}
