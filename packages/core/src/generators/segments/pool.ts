import { isSheafError, SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';
import type { Clock } from '../shared/clock.js';
import type { IdKind } from '../shared/id-kind.js';
import { messageOf } from '../shared/message-of.js';
import { Backoff, withTimeout } from '../shared/timers.js';
import type { Segment } from './alloc.js';
import { classMismatch } from './class-check.js';
import { ClassAllocator, type ResidueClass } from './classes.js';
import type { SegmentDatabaseStatus, SegmentSource } from './source.js';

/** What a {@link SegmentPool} needs besides its databases. */
export interface PoolSettings {
  readonly bizTag: string;
  readonly kind: IdKind;
  readonly clock: Clock;
  readonly queryTimeoutMs: number;
  readonly retry: { readonly minMs: number; readonly maxMs: number };
  /** Aborted by close(): no further database is tried. */
  readonly signal: AbortSignal;
  readonly closed: () => Error;
}

interface Member {
  readonly index: number;
  readonly allocator: ClassAllocator;
  readonly backoff: Backoff;
  failures: number;
  retryAt: number;
  lastError: unknown;
  segments: number;
  /** Answered once: NOT_INSTALLED from it since is an upgrade replacing a routine, an outage. */
  served: boolean;
}

/**
 * One biz_tag over several databases, tinyid-style: database k of n hands out ids ≡ k (mod n), so
 * no two can collide and any of them may be down. Each allocation goes to the next database in
 * turn (spreading the load and keeping their max_ids close, so ids trend upwards); one that fails
 * is skipped until its backoff ends, as TicketClient skips a ticket server.
 */
export class SegmentPool implements SegmentSource {
  /** Each database's query is bounded by queryTimeoutMs on its own. */
  readonly fetchTimeoutMs = Number.POSITIVE_INFINITY;
  private readonly members: readonly Member[];
  // A random first turn, so that processes started together do not all hit database 0 first.
  private turn: number;

  constructor(
    executors: readonly SqlExecutor[],
    private readonly settings: PoolSettings,
  ) {
    const n = executors.length;
    this.members = executors.map((executor, index) => ({
      index,
      allocator: new ClassAllocator(executor, settings.bizTag, settings.kind, { delta: n, remainder: index }),
      backoff: new Backoff(settings.retry.minMs, settings.retry.maxMs),
      failures: 0,
      retryAt: 0,
      lastError: undefined,
      segments: 0,
      served: false,
    }));
    this.turn = Math.floor(Math.random() * n);
  }

  /**
   * A segment from the next database in turn that is up, else from those in their backoff, the one
   * due first first. Throws only when none answered: the first refusal (a coded error, which
   * waiting callers get at once) or else a plain error (an outage, retried).
   */
  async alloc(step: number | undefined): Promise<Segment> {
    const n = this.members.length;
    const start = this.turn;
    this.turn = (start + 1) % n;
    const now = this.settings.clock.monotonic();
    const order = this.members.map((_, i) => this.members[(start + i) % n]!);
    const due = order.filter((member) => member.retryAt <= now);
    const waiting = order.filter((member) => member.retryAt > now).sort((a, b) => a.retryAt - b.retryAt);
    let refusal: SheafError | undefined;
    for (const member of [...due, ...waiting]) {
      if (this.settings.signal.aborted) throw this.settings.closed();
      try {
        const segment = await withTimeout(
          member.allocator.alloc(step),
          this.settings.queryTimeoutMs,
          `the allocation on database ${member.index}`,
        );
        this.succeeded(member);
        // The turn passes to the database after the one that answered, so the ones that are up
        // share the load evenly while another is down.
        this.turn = (member.index + 1) % n;
        return segment;
      } catch (error) {
        const refused = this.failed(member, error);
        refusal ??= refused;
      }
    }
    if (refusal) throw refusal;
    const last = this.members.find((member) => member.lastError !== undefined)?.lastError;
    throw new Error(`segment '${this.settings.bizTag}': all ${n} databases failed (${messageOf(last)})`, {
      cause: new AggregateError(
        this.members.map((member) => member.lastError),
        'every segment database failed',
      ),
    });
  }

  /**
   * Reads every database's class at once and refuses a set in which one disagrees with its
   * position (SEGMENT_CLASS_MISMATCH, naming it and the database whose class it holds) or refuses
   * to answer (UNKNOWN_SEGMENT, NOT_INSTALLED). A database that does not answer is down: it is
   * skipped until its backoff ends, and its class is checked by the database at every allocation.
   */
  async check(timeoutMs: number): Promise<void> {
    const refusals: SheafError[] = [];
    const answers = await Promise.all(
      this.members.map((member) =>
        withTimeout(member.allocator.read(), timeoutMs, `reading the class on database ${member.index}`).then(
          (found): ResidueClass | undefined => found,
          (error: unknown) => {
            const refused = this.failed(member, error);
            if (refused) refusals[member.index] = refused;
            return undefined;
          },
        ),
      ),
    );
    // The lowest position first, whichever database answered first.
    const refusal = refusals.find((each) => each !== undefined);
    if (refusal) throw refusal;
    const mismatch = classMismatch(this.settings.bizTag, answers);
    if (mismatch) throw mismatch;
  }

  databases(): SegmentDatabaseStatus[] {
    const now = this.settings.clock.monotonic();
    return this.members.map((member) => ({
      index: member.index,
      remainder: member.index,
      delta: this.members.length,
      up: member.failures === 0,
      failures: member.failures,
      retryInMs: Math.max(0, Math.round(member.retryAt - now)),
      segments: member.segments,
      lastError: member.lastError === undefined ? undefined : messageOf(member.lastError),
    }));
  }

  private succeeded(member: Member): void {
    member.failures = 0;
    member.lastError = undefined;
    member.served = true;
    member.segments++;
    member.retryAt = 0;
    member.backoff.reset();
  }

  /** Records a failure and starts the member's backoff; returns the error as a refusal if it is one. */
  private failed(member: Member, error: unknown): SheafError | undefined {
    const refused = this.refusal(member, error);
    member.failures++;
    member.lastError = refused ?? error;
    member.retryAt = this.settings.clock.monotonic() + member.backoff.next();
    return refused;
  }

  /** A coded error, named after the database: a mistake, not an outage (as TicketClient tells them apart). */
  private refusal(member: Member, error: unknown): SheafError | undefined {
    if (!isSheafError(error) || (member.served && error.code === 'NOT_INSTALLED')) return undefined;
    const n = this.members.length;
    const text = error.message.replace(/^sheaf: /, '');
    return new SheafError(
      error.code,
      `segment '${this.settings.bizTag}' on database ${member.index} of ${n}: ${text}`,
      {
        cause: error,
        details: { ...error.details, bizTag: this.settings.bizTag, database: member.index, databases: n },
      },
    );
  }
}
