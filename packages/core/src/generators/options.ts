import { SheafError } from '../errors.js';

/** `value` if it is an integer in [min, max], `fallback` when undefined; INVALID_ARGUMENT otherwise. */
export function intOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  throw new SheafError('INVALID_ARGUMENT', `${name} must be an integer from ${min} to ${max}, not ${String(value)}`, {
    details: { option: name, value: Number.isNaN(value) ? 'NaN' : value, min, max },
  });
}

/** Like {@link intOption} for any finite number (fractions, timeouts that may be Infinity excluded). */
export function numberOption(name: string, value: number | undefined, fallback: number, min: number, max: number) {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && value >= min && value <= max) return value;
  throw new SheafError('INVALID_ARGUMENT', `${name} must be a number from ${min} to ${max}, not ${String(value)}`, {
    details: { option: name, value: String(value), min, max },
  });
}

/**
 * The retry schedule of a generator talking to a database that may be down: waits double from
 * `minMs` to `maxMs`, with ±25 % jitter.
 *
 * @example
 * const retry: RetryOptions = { minMs: 200, maxMs: 5_000 };
 */
export interface RetryOptions {
  /** First wait after a failed query, in ms; doubles per failure. */
  readonly minMs?: number;
  /** Longest wait between attempts, in ms. */
  readonly maxMs?: number;
}

export function retryOptions(retry: RetryOptions | undefined, minMs: number, maxMs: number) {
  const min = intOption('retry.minMs', retry?.minMs, minMs, 1, 3_600_000);
  return { minMs: min, maxMs: intOption('retry.maxMs', retry?.maxMs, Math.max(min, maxMs), min, 3_600_000) };
}
