import type { Clock } from '@sheaf/core';

/** A clock that follows real time from an offset the test can step, forwards or backwards. */
export function steppedClock(offsetMs = 0): { clock: Clock; step(ms: number): void } {
  let offset = offsetMs;
  return {
    clock: { now: () => Date.now() + offset, monotonic: () => performance.now() },
    step(ms) {
      offset += ms;
    },
  };
}

/** A wall clock that only moves when the test advances it (the monotonic clock stays real). */
export function manualClock(startMs = Date.now()): { clock: Clock; advance(ms: number): void } {
  let now = startMs;
  return {
    clock: { now: () => now, monotonic: () => performance.now() },
    advance(ms) {
      now += ms;
    },
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every few ms until it holds; fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/**
 * A wall clock that moves 1 ms forward every `readsPerMs` reads, whatever the machine's speed: a
 * generator that reads it once per id sees exactly `readsPerMs` calls per millisecond.
 */
export function countingClock(readsPerMs: number, startMs = Date.now()): Clock {
  let reads = 0;
  return { now: () => startMs + Math.floor(reads++ / readsPerMs), monotonic: () => performance.now() };
}
