/**
 * The clocks a generator reads, injectable for tests. `now()` is the wall clock that snowflake ids
 * carry and that the dynamic segment step measures; `monotonic()` times leases, waits and timeouts,
 * where a wall-clock step must not move a deadline.
 *
 * @example
 * let offset = 0;
 * const stepped: Clock = { now: () => Date.now() + offset, monotonic: () => performance.now() };
 */
export interface Clock {
  /** Unix milliseconds, an integer (as `Date.now()`). */
  now(): number;
  /** Milliseconds from an arbitrary origin that never go backwards (as `performance.now()`). */
  monotonic(): number;
}

/**
 * `Date.now()` and `performance.now()`: the clock every generator uses unless given another.
 *
 * @example
 * const ids = await SnowflakeGenerator.start(executor, { clock: systemClock });
 */
export const systemClock: Clock = Object.freeze({
  now: Date.now,
  monotonic: () => performance.now(),
});
