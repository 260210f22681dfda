import { SheafError } from '../../errors.js';
import { detailValue, formatArgument } from '../../format.js';
import type { Clock } from '../shared/clock.js';
import { type IdKind, idKind } from '../shared/id-kind.js';
import {
  booleanOption,
  clockOption,
  intOption,
  numberOption,
  optionsObject,
  type RetryOptions,
  retryOptions,
} from '../shared/options.js';

/** Leaf's ceiling on the dynamic step. */
const defaultMaxStep = 1_000_000;

/**
 * What {@link SegmentGenerator} takes; every option but `bizTag` has a default.
 *
 * @example
 * const options: SegmentGeneratorOptions = { bizTag: 'orders', maxStep: 500_000, waitTimeoutMs: 2000 };
 */
export interface SegmentGeneratorOptions<K extends IdKind = 'number'> {
  /**
   * The row of `sheaf.segments` to allocate from (create it with `sheaf.create_segment`; MySQL:
   * `sheaf_create_segment`; over several databases `create_segment_class`), or of a Leaf table.
   */
  readonly bizTag: string;
  /** `'number'` (default; ids must stay below 2^53) or `'bigint'`. */
  readonly ids?: K;
  /** Size of the first segment; default: the row's `step`. */
  readonly step?: number;
  /** Smallest dynamic step; default: the first segment's size. */
  readonly minStep?: number;
  /** Largest dynamic step; default 1,000,000 (Leaf's). */
  readonly maxStep?: number;
  /** Double or halve the step so a segment lasts 15–30 minutes (default true). */
  readonly dynamicStep?: boolean;
  /** Fraction of a segment used when the next one is fetched (default 0.1). */
  readonly prefetchRatio?: number;
  /** How long `next()` waits for a segment when both buffers are empty (default 5000 ms). */
  readonly waitTimeoutMs?: number;
  /** How long one allocation query may take before it counts as failed, per database (default 10,000 ms). */
  readonly queryTimeoutMs?: number;
  /** Backoff between failed allocations, and how long a failed database is skipped (default 100 ms doubling to 10 s). */
  readonly retry?: RetryOptions;
  /** Wall clock for the dynamic step, monotonic clock for waits (default {@link systemClock}). */
  readonly clock?: Clock;
}

/** How a segment generator sizes its segments; `minStep` is set from the first segment when not given. */
export interface StepSettings {
  step?: number;
  minStep?: number;
  maxStep: number;
  dynamic: boolean;
  ratio: number;
}

/** The options of a segment generator, checked, with their defaults. */
export interface SegmentSettings {
  readonly bizTag: string;
  readonly kind: IdKind;
  readonly clock: Clock;
  readonly steps: StepSettings;
  readonly waitTimeoutMs: number;
  readonly queryTimeoutMs: number;
  readonly retry: ReturnType<typeof retryOptions>;
}

/** Checks `given` (INVALID_ARGUMENT naming the option, its value and its range) and fills defaults. */
export function segmentSettings(given: SegmentGeneratorOptions<IdKind>): SegmentSettings {
  const options = optionsObject('SegmentGenerator', given);
  if (typeof options.bizTag !== 'string' || options.bizTag === '') {
    throw new SheafError('INVALID_ARGUMENT', `bizTag must be non-empty text, not ${formatArgument(options.bizTag)}`, {
      details: { option: 'bizTag', value: detailValue(options.bizTag) },
    });
  }
  const kind = idKind(options.ids, 'number');
  const clock = clockOption(options.clock);
  const maxStep = intOption('maxStep', options.maxStep, defaultMaxStep, 1, 2 ** 31 - 1);
  const minStep = options.minStep === undefined ? undefined : intOption('minStep', options.minStep, 1, 1, maxStep);
  const step = options.step === undefined ? undefined : intOption('step', options.step, 1, minStep ?? 1, maxStep);
  const steps = {
    ...(step === undefined ? {} : { step }),
    ...(minStep === undefined ? {} : { minStep }),
    maxStep,
    dynamic: booleanOption('dynamicStep', options.dynamicStep, true),
    ratio: numberOption('prefetchRatio', options.prefetchRatio, 0.1, 0, 1),
  };
  const waitTimeoutMs = intOption('waitTimeoutMs', options.waitTimeoutMs, 5000, 0, 2 ** 31 - 1);
  const retry = retryOptions(options.retry, 100, 10_000);
  const queryTimeoutMs = intOption('queryTimeoutMs', options.queryTimeoutMs, 10_000, 1, 2 ** 31 - 1);
  return { bizTag: options.bizTag, kind, clock, steps, waitTimeoutMs, queryTimeoutMs, retry };
}
