import { SheafError } from '../../errors.js';
import { detailValue, formatArgument } from '../../format.js';
import type { Layout } from '../../layout.js';
import { layoutOrPreset, type PresetName } from '../../presets.js';
import { shardArgument } from '../../shard-argument.js';
import type { Clock } from '../shared/clock.js';
import { type IdKind, idKind } from '../shared/id-kind.js';
import { clockOption, intOption, optionsObject } from '../shared/options.js';
import type { LeaseSettings } from './worker-lease.js';

/**
 * What {@link SnowflakeGenerator.start} takes; every option has a default.
 *
 * @example
 * const options: SnowflakeGeneratorOptions = { layout: 'twitter', leaseMs: 60_000, heartbeatMs: 5_000 };
 */
export interface SnowflakeGeneratorOptions<K extends IdKind = 'bigint'> {
  /** A preset name or a layout from `defineLayout`; the worker id is its shard field (default `sheaf`). */
  readonly layout?: Layout | PresetName;
  /** `'bigint'` (default) or `'number'`, which needs a layout whose ids stay below 2^53 (`js53`). */
  readonly ids?: K;
  /** Highest worker id to lease (default: the layout's largest shard). */
  readonly maxWorker?: number;
  /**
   * Lease exactly this worker id instead of the lowest free one; refused with SHARD_TAKEN, naming
   * the holder, while a database has it as its shard or another generator's lease on it is live.
   */
  readonly workerId?: number;
  /** Shown in `sheaf.workers.holder` (default `pid <pid>` and the host name when known). */
  readonly holder?: string;
  /** Lease length in ms (default 30,000). */
  readonly leaseMs?: number;
  /** Heartbeat period in ms (default 3,000). */
  readonly heartbeatMs?: number;
  /**
   * Ids stop this long before the lease would expire without a heartbeat (default 10 % of leaseMs,
   * at least {@link minSafetyMarginMs}).
   */
  readonly safetyMarginMs?: number;
  /** A backwards clock step up to this is waited out; a larger one throws (default 5 ms). */
  readonly maxBackwardsMs?: number;
  /**
   * `start()` waits up to this long for its clock to pass the timestamp recorded for the worker id it
   * leased; further ahead it throws CLOCK_BEHIND_WORKER (default 1,000 ms, below the lease).
   */
  readonly maxStartWaitMs?: number;
  /** Wall clock of the ids, monotonic clock of the lease (default {@link systemClock}). */
  readonly clock?: Clock;
}

/**
 * The smallest safety margin: between two deadline checks the generator issues ids for up to a
 * millisecond of its wall clock, and the local deadline and the database's expiry run on different
 * clocks; a margin of 0 would let a fenced holder issue past the expiry.
 */
export const minSafetyMarginMs = 5;

/** The options of a snowflake generator, checked, with their defaults. */
export interface SnowflakeSettings {
  readonly layout: Layout;
  readonly kind: IdKind;
  readonly lease: LeaseSettings;
  readonly maxBackwardsMs: number;
  readonly maxStartWaitMs: number;
}

/** Checks `options` (INVALID_ARGUMENT naming the option, its value and its range) and fills defaults. */
export function snowflakeSettings(given: SnowflakeGeneratorOptions<IdKind> | undefined): SnowflakeSettings {
  const options = optionsObject('SnowflakeGenerator', given);
  const layout = layoutOrPreset(options.layout);
  const kind = idKind(options.ids, 'bigint');
  if (kind === 'number' && !layout.safeIntegerIds) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `ids: 'number' needs a layout whose ids stay below 2^53, not "${layout.name}"`,
    );
  }
  const leaseMs = intOption('leaseMs', options.leaseMs, 30_000, 100, 2 ** 31 - 1);
  const safetyMarginMs = intOption(
    'safetyMarginMs',
    options.safetyMarginMs,
    Math.ceil(leaseMs / 10),
    minSafetyMarginMs,
    leaseMs - 1,
  );
  // The lease has to outlive whatever precedes the next heartbeat: a period, or the wait at start.
  const beforeBeat = leaseMs - safetyMarginMs - 1;
  const heartbeatMs = intOption('heartbeatMs', options.heartbeatMs, 3_000, 1, beforeBeat);
  const lease: LeaseSettings = {
    holder: holderOption(options.holder),
    leaseMs,
    heartbeatMs,
    safetyMarginMs,
    maxWorker: intOption('maxWorker', options.maxWorker, layout.maxShard, 0, layout.maxShard),
    // A worker id is a value of the shard field: refused as a shard is (SHARD_OUT_OF_RANGE).
    workerId: options.workerId === undefined ? undefined : shardArgument(options.workerId, layout),
    clock: clockOption(options.clock),
  };
  return {
    layout,
    kind,
    lease,
    maxBackwardsMs: intOption('maxBackwardsMs', options.maxBackwardsMs, 5, 0, 60_000),
    maxStartWaitMs: intOption('maxStartWaitMs', options.maxStartWaitMs, Math.min(1_000, beforeBeat), 0, beforeBeat),
  };
}

/** The column is varchar(255) on MySQL; the SQL refuses an empty holder on both. */
function holderOption(holder: unknown): string {
  if (holder === undefined) return defaultHolder();
  if (typeof holder === 'string' && holder !== '' && holder.length <= 255) return holder;
  throw new SheafError(
    'INVALID_ARGUMENT',
    `holder must be text of 1 to 255 characters, not ${formatArgument(holder)}`,
    {
      details: { option: 'holder', value: detailValue(holder) },
    },
  );
}

function defaultHolder(): string {
  const host = globalThis.process?.env?.HOSTNAME;
  const pid = globalThis.process?.pid;
  return `pid ${pid ?? '?'}${host ? ` on ${host}` : ''}`;
}
