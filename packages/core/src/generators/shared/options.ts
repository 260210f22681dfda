import { SheafError } from '../../errors.js';
import { detailValue, formatArgument, typeName } from '../../format.js';
import { type Clock, systemClock } from './clock.js';

/** `options`, or `{}` when undefined; INVALID_ARGUMENT for null and anything else that is not an object. */
export function optionsObject<T extends object>(what: string, options: T | undefined): Partial<T> {
  if (options === undefined) return {};
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) return options;
  throw new SheafError('INVALID_ARGUMENT', `${what} options ${formatArgument(options)} are not an object`, {
    details: { type: typeName(options) },
  });
}

/** `value` if it is an integer in [min, max], `fallback` when undefined; INVALID_ARGUMENT otherwise. */
export function intOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  throw new SheafError(
    'INVALID_ARGUMENT',
    `${name} must be an integer from ${min} to ${max}, not ${formatArgument(value)}`,
    {
      details: { option: name, value: Number.isNaN(value) ? 'NaN' : detailValue(value), min, max },
    },
  );
}

/** Like {@link intOption} for any finite number (fractions, timeouts that may be Infinity excluded). */
export function numberOption(name: string, value: number | undefined, fallback: number, min: number, max: number) {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && value >= min && value <= max) return value;
  throw new SheafError(
    'INVALID_ARGUMENT',
    `${name} must be a number from ${min} to ${max}, not ${formatArgument(value)}`,
    {
      details: { option: name, value: String(value), min, max },
    },
  );
}

/** `value` if it is a boolean, `fallback` when undefined: a truthy string would read as `true`. */
export function booleanOption(name: string, value: boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  throw new SheafError('INVALID_ARGUMENT', `${name} must be true or false, not ${formatArgument(value)}`, {
    details: { option: name, type: typeName(value) },
  });
}

/** The `clock` option: {@link systemClock} when undefined, else an object with `now()` and `monotonic()`. */
export function clockOption(value: Clock | undefined): Clock {
  if (value === undefined) return systemClock;
  const clock = value as Partial<Clock> | null;
  if (typeof clock?.now === 'function' && typeof clock.monotonic === 'function') return value;
  throw new SheafError('INVALID_ARGUMENT', `clock ${formatArgument(value)} has no now() and monotonic() functions`, {
    details: { option: 'clock', type: typeName(value) },
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
  const { minMs: first, maxMs: last } = optionsObject('retry', retry);
  const min = intOption('retry.minMs', first, minMs, 1, 3_600_000);
  return { minMs: min, maxMs: intOption('retry.maxMs', last, Math.max(min, maxMs), min, 3_600_000) };
}
