import { isSheafError } from '../../errors.js';
import { Backoff, pause, withTimeout } from './timers.js';

/** How a {@link Refill} retries and how long one query may take. */
export interface RefillSettings {
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly queryTimeoutMs: number;
  /** Aborting stops the loop, its timers and every waiter. */
  readonly signal: AbortSignal;
  /** The error waiters get when the signal aborts. */
  readonly closed: () => Error;
}

interface Waiter {
  resolve(arrived: boolean): void;
  reject(error: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One background fetch at a time, retried with backoff until it succeeds or the signal aborts.
 * A coded SheafError from the database (unknown segment, bad argument) is not going to heal by
 * itself, so waiters get it at once; anything else (a refused connection, a timeout) is transient
 * and waiters keep waiting until their own timeout. So is NOT_INSTALLED after a fetch succeeded:
 * sheaf was there, and a routine missing now is an upgrade replacing it (MySQL drops and creates).
 */
export class Refill<T> {
  private running = false;
  /** The running loop, or a settled promise: what {@link idle} waits for. */
  private looping: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<Waiter>();
  /** The error of the last attempt; undefined once an attempt succeeds. */
  lastError: unknown;
  /** Failed attempts since the last success. */
  failures = 0;
  private fetched = false;

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly accept: (value: T) => void,
    private readonly settings: RefillSettings,
  ) {
    settings.signal.addEventListener('abort', () => this.settle((waiter) => waiter.reject(settings.closed())), {
      once: true,
    });
  }

  get inFlight(): boolean {
    return this.running;
  }

  /** The last error when it was permanent: callers with empty buffers should get it at once. */
  get permanentError(): unknown {
    return this.permanent(this.lastError) ? this.lastError : undefined;
  }

  /** Starts a fetch unless one is already under way. */
  request(): void {
    if (this.running || this.settings.signal.aborted) return;
    this.running = true;
    this.looping = this.loop();
  }

  /**
   * Resolves once the loop has stopped: after the signal aborted, its query in flight has settled
   * or outlived `queryTimeoutMs`. Callers wait for it on close so that ending their pool right after
   * does not pull a connection from under a query (drivers then raise errors nobody can catch).
   */
  idle(): Promise<void> {
    return this.looping;
  }

  /** Resolves true when the next fetch lands, false after `timeoutMs`; rejects on a permanent error. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.settings.signal.aborted) return Promise.reject(this.settings.closed());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      waiter.timer.unref?.();
      this.waiters.add(waiter);
    });
  }

  private async loop(): Promise<void> {
    const { signal } = this.settings;
    const backoff = new Backoff(this.settings.minBackoffMs, this.settings.maxBackoffMs);
    while (!signal.aborted) {
      try {
        const value = await withTimeout(this.fetch(), this.settings.queryTimeoutMs, 'the query');
        if (signal.aborted) break;
        this.lastError = undefined;
        this.failures = 0;
        this.fetched = true;
        this.running = false;
        this.accept(value);
        this.settle((waiter) => waiter.resolve(true));
        return;
      } catch (error) {
        this.lastError = error;
        this.failures++;
        if (this.permanent(error)) this.settle((waiter) => waiter.reject(error));
        await pause(backoff.next(), signal);
      }
    }
    this.running = false;
  }

  private permanent(error: unknown): boolean {
    return isSheafError(error) && !(this.fetched && error.code === 'NOT_INSTALLED');
  }

  private settle(action: (waiter: Waiter) => void): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      action(waiter);
    }
    this.waiters.clear();
  }
}
