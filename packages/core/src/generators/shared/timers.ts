// Timers of the generators: unref'd, so a generator never keeps a process alive, and cancellable
// through an AbortSignal, so close() stops every one of them at once.

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Rejects with a plain (transient) error when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Exponential backoff with ±25 % jitter, so clients cut off together do not retry in lockstep. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  next(): number {
    const base = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  reset(): void {
    this.attempt = 0;
  }
}
