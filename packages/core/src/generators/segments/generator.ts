import { SheafError } from '../../errors.js';
import type { Database } from '../../executors/executor-of.js';
import type { LeafAllocSource } from '../leaf/source.js';
import type { Clock } from '../shared/clock.js';
import type { IdKind, IdOf } from '../shared/id-kind.js';
import { messageOf } from '../shared/message-of.js';
import { Refill } from '../shared/refill.js';
import type { Segment } from './alloc.js';
import { BurnRate } from './burn-rate.js';
import { nextStep } from './dynamic-step.js';
import { type SegmentGeneratorOptions, type StepSettings, segmentSettings } from './options.js';
import type { SegmentDatabaseStatus, SegmentSource } from './source.js';
import { segmentSourceOf } from './source-of.js';

export type { SegmentGeneratorOptions } from './options.js';

/**
 * What {@link SegmentGenerator.stats} reports.
 *
 * @example
 * const { burnRate, runwaySeconds }: SegmentStats = generator.stats();
 */
export interface SegmentStats {
  readonly bizTag: string;
  /** Size of the last segment fetched (0 before the first). */
  readonly step: number;
  /** Ids left in memory, in both buffers. */
  readonly remaining: number;
  /** Ids handed out per second over about the last minute. */
  readonly burnRate: number;
  /** Seconds until the buffers run dry at the burn rate if no segment arrives (Infinity when idle). */
  readonly runwaySeconds: number;
  /** Ids handed out so far. */
  readonly issued: number;
  /** Segments fetched so far. */
  readonly segments: number;
  readonly fetching: boolean;
  /** Failed allocations since the last successful one. */
  readonly failures: number;
  readonly lastError: string | undefined;
}

/**
 * Leaf-segment: ids handed out from memory, ranges allocated with `sheaf.alloc_segment`. Two
 * buffers: the next segment is fetched in the background once 10 % of the current one is used, so
 * the database is off the hot path and an outage is ridden out for as long as the buffers last.
 * Ids are monotonic per generator; generators sharing a `bizTag` never hand out the same id.
 *
 * Given an array of databases, one tag is spread over them (tinyid): database k of n hands out ids
 * ≡ k (mod n), recorded in its row (`create_segment_class`) and checked by `start()`; segments come
 * from each database in turn, and one that is down is skipped. Ids then rise within a segment and
 * trend upwards across them. Given {@link leafAllocSource}, segments come from a Leaf table.
 *
 * @example
 * const orders = await new SegmentGenerator(executor, { bizTag: 'orders' }).start();
 * const id = orders.nextSync() ?? (await orders.next());
 * const spread = await new SegmentGenerator([dbA, dbB, dbC], { bizTag: 'orders' }).start();
 */
export class SegmentGenerator<K extends IdKind = 'number'> {
  readonly bizTag: string;
  // The current segment is base + i × stride for i in 0 … size − 1 (baseBig in BigInt mode); cursor
  // is the next i. The stride is the number of databases (1 for one).
  private base = 0;
  private baseBig = 0n;
  private stride = 1;
  private strideBig = 1n;
  private size = 0;
  private cursor = 0;
  private prefetchAt = 0;
  private spare: Segment | undefined;
  private readonly bigint: boolean;
  private readonly source: SegmentSource;
  private readonly clock: Clock;
  private readonly refill: Refill<Segment>;
  private readonly stop = new AbortController();
  private readonly settings: StepSettings;
  private readonly waitTimeoutMs: number;
  private readonly queryTimeoutMs: number;
  private readonly burn: BurnRate;
  private step = 0;
  private lastFetchAt = 0;
  private segments = 0;
  private issuedBefore = 0;

  constructor(db: Database | readonly Database[] | LeafAllocSource, given: SegmentGeneratorOptions<K>) {
    const { bizTag, kind, clock, steps, waitTimeoutMs, queryTimeoutMs, retry } = segmentSettings(given);
    this.bizTag = bizTag;
    this.bigint = kind === 'bigint';
    this.clock = clock;
    this.settings = steps;
    this.waitTimeoutMs = waitTimeoutMs;
    this.queryTimeoutMs = queryTimeoutMs;
    const closed = () => this.closedError();
    const { stop } = this;
    this.source = segmentSourceOf(db, { bizTag, kind, clock, queryTimeoutMs, retry, signal: stop.signal, closed });
    this.refill = new Refill(
      () => this.fetch(),
      (segment) => this.accept(segment),
      {
        minBackoffMs: retry.minMs,
        maxBackoffMs: retry.maxMs,
        queryTimeoutMs: this.source.fetchTimeoutMs ?? queryTimeoutMs,
        signal: this.stop.signal,
        closed,
      },
    );
    this.burn = new BurnRate(this.clock.monotonic());
  }

  /**
   * Fetches the first segment now (rather than on the first `next()`), rejecting if it cannot.
   * Over several databases it first reads each one's residue class and refuses
   * (SEGMENT_CLASS_MISMATCH) one that is not its position's; a database that does not answer is
   * skipped, and checked by the database itself at each allocation.
   */
  async start(): Promise<this> {
    const deadline = this.clock.monotonic() + this.waitTimeoutMs;
    await this.source.check?.(Math.max(1, Math.min(this.queryTimeoutMs, this.waitTimeoutMs)));
    while (this.cursor >= this.size && this.spare === undefined) {
      if (this.stop.signal.aborted) throw this.closedError();
      const permanent = this.refill.permanentError;
      if (permanent !== undefined) throw permanent;
      this.refill.request();
      await this.arrival(deadline);
    }
    return this;
  }

  /**
   * The next id from memory, or `undefined` when both buffers are empty (a fetch is then under way;
   * `next()` waits for it). Throws the database's coded error when the last fetch failed for good.
   */
  nextSync(): IdOf<K> | undefined {
    const i = this.cursor;
    if (i < this.size) {
      this.cursor = i + 1;
      if (i === this.prefetchAt && this.spare === undefined) this.refill.request();
      return (this.bigint ? this.baseBig + BigInt(i) * this.strideBig : this.base + i * this.stride) as IdOf<K>;
    }
    return this.swap();
  }

  /** The next id; waits up to `waitTimeoutMs` for a segment, then rejects with `SEGMENT_UNAVAILABLE`. */
  next(): Promise<IdOf<K>> {
    try {
      const id = this.nextSync();
      if (id !== undefined) return Promise.resolve(id);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.waitForId();
  }

  /** Step, burn rate and runway: how long the buffers would last if the database went away now. */
  stats(): SegmentStats {
    const at = this.clock.monotonic();
    const issued = this.issuedBefore + this.cursor;
    this.burn.record(at, issued);
    const burnRate = this.burn.perSecond(at, issued);
    const remaining = this.size - this.cursor + (this.spare?.size ?? 0);
    const error = this.refill.lastError;
    return {
      bizTag: this.bizTag,
      step: this.step,
      remaining,
      burnRate,
      runwaySeconds: burnRate > 0 ? remaining / burnRate : Number.POSITIVE_INFINITY,
      issued,
      segments: this.segments,
      fetching: this.refill.inFlight,
      failures: this.refill.failures,
      lastError: error === undefined ? undefined : messageOf(error),
    };
  }

  /**
   * Health of each database, in the order given: which are up, which are skipped and for how long.
   * One entry for a generator over one database or a Leaf table.
   */
  databases(): SegmentDatabaseStatus[] {
    const own = this.source.databases?.();
    if (own) return own;
    const { failures, lastError } = this.refill;
    const last = lastError === undefined ? undefined : messageOf(lastError);
    const segments = this.segments;
    return [
      { index: 0, remainder: 0, delta: 1, up: failures === 0, failures, retryInMs: 0, segments, lastError: last },
    ];
  }

  /**
   * Stops fetching and timers; ids left in memory are dropped (segments may leave gaps).
   * Resolves once no allocation is in flight (or the one in flight outlived `queryTimeoutMs`), so
   * the pool may be ended right after.
   */
  close(): Promise<void> {
    this.issuedBefore += this.cursor;
    this.size = 0;
    this.cursor = 0;
    this.spare = undefined;
    this.stop.abort();
    return this.refill.idle();
  }

  private swap(): IdOf<K> | undefined {
    if (this.stop.signal.aborted) throw this.closedError();
    if (this.spare !== undefined) {
      this.install(this.spare);
      this.spare = undefined;
      return this.nextSync();
    }
    const permanent = this.refill.permanentError;
    if (permanent !== undefined) throw permanent;
    this.refill.request();
    return undefined;
  }

  private async waitForId(): Promise<IdOf<K>> {
    const deadline = this.clock.monotonic() + this.waitTimeoutMs;
    for (;;) {
      const id = this.nextSync();
      if (id !== undefined) return id;
      await this.arrival(deadline);
    }
  }

  /** Waits for the fetch under way to land; `SEGMENT_UNAVAILABLE` at `deadline`. */
  private async arrival(deadline: number): Promise<void> {
    const left = deadline - this.clock.monotonic();
    if (left > 0 && (await this.refill.wait(left))) return;
    if (this.cursor < this.size || this.spare !== undefined) return;
    throw this.unavailable();
  }

  private fetch(): Promise<Segment> {
    return this.source.alloc(this.plannedStep());
  }

  /** Leaf 2.5: the step for the next allocation, from how long the previous segment lasted. */
  private plannedStep(): number | undefined {
    if (this.segments === 0) return this.settings.step;
    if (!this.settings.dynamic) return this.step;
    const bounds = { minStep: this.settings.minStep ?? this.step, maxStep: this.settings.maxStep };
    return nextStep(this.step, this.clock.now() - this.lastFetchAt, bounds);
  }

  private accept(segment: Segment): void {
    if (this.stop.signal.aborted) return;
    const step = segment.step ?? segment.size;
    if (this.segments === 0 && this.settings.minStep === undefined) this.settings.minStep = step;
    this.segments++;
    this.step = step;
    this.lastFetchAt = this.clock.now();
    if (this.cursor >= this.size) this.install(segment);
    else this.spare = segment;
  }

  private install(segment: Segment): void {
    this.issuedBefore += this.cursor;
    this.burn.record(this.clock.monotonic(), this.issuedBefore);
    this.baseBig = segment.first;
    // In Number mode every id of the segment was checked to be below 2^53 when it was fetched.
    this.base = this.bigint ? 0 : Number(segment.first);
    this.stride = segment.stride;
    this.strideBig = BigInt(segment.stride);
    this.cursor = 0;
    this.size = segment.size;
    this.prefetchAt = Math.min(segment.size - 1, Math.floor(segment.size * this.settings.ratio));
  }

  private unavailable(): SheafError {
    const { lastError, failures } = this.refill;
    const last = lastError === undefined ? 'none failed' : `last: ${messageOf(lastError)}`;
    return new SheafError(
      'SEGMENT_UNAVAILABLE',
      `segment '${this.bizTag}': no ids left in memory and no segment arrived within ${this.waitTimeoutMs} ms ` +
        `(${failures} failed allocations; ${last})`,
      { cause: lastError, details: { bizTag: this.bizTag, waitTimeoutMs: this.waitTimeoutMs, failures } },
    );
  }

  private closedError(): SheafError {
    return new SheafError('GENERATOR_CLOSED', `segment generator '${this.bizTag}' is closed`, {
      details: { bizTag: this.bizTag },
    });
  }
}
