import { SheafError } from './errors.js';
import { formatTime, formatValue, jsonSafe, maxDateMs } from './format.js';

/** Ids are positive signed 64-bit integers: the top bit of the 64 always stays 0. */
const maxSignedId = (1n << 63n) - 1n;

// A date-time without an offset is local time in JavaScript; an epoch must not depend on the
// machine's time zone, so a time part needs `Z` or `±hh:mm`. A date alone is UTC.
const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|([+-])(\d{2}):(\d{2})))?$/;

/**
 * How a 64-bit id is split, from the top: time (ms since `epoch`) · shard · sequence, below a sign
 * bit that stays 0. Build one with {@link defineLayout} or pick a preset; the derived fields let
 * encode and decode skip recomputing shifts and masks on every call.
 *
 * @example
 * const { epoch, timeBits, shardBits, sequenceBits } = presets.sheaf; // 1704067200000, 41, 12, 10
 */
export interface Layout {
  /** Name used in messages (and by `layoutByName` for presets). */
  readonly name: string;
  /** Unix ms that time offset 0 stands for. */
  readonly epoch: number;
  readonly timeBits: number;
  readonly shardBits: number;
  readonly sequenceBits: number;
  /** Largest shard id: 2^shardBits − 1 (0 when there are no shard bits). */
  readonly maxShard: number;
  /** Largest sequence: 2^sequenceBits − 1. */
  readonly maxSequence: number;
  /** Last unix ms the layout can encode: capped by `timeBits`, by the sign bit and by the `Date` range. */
  readonly lastMs: number;
  /** Largest id of the layout (the ceiling at `lastMs`); valid ids are 0n..maxId. */
  readonly maxId: bigint;
  /** True when `maxId` ≤ `Number.MAX_SAFE_INTEGER`: every id survives JavaScript numbers and JSON. */
  readonly safeIntegerIds: boolean;
  /** Position of the time field: shardBits + sequenceBits. */
  readonly timeShift: bigint;
  /** Position of the shard field: sequenceBits. */
  readonly shardShift: bigint;
  /** maxShard as a bigint, applied after shifting by `shardShift`. */
  readonly shardMask: bigint;
  /** maxSequence as a bigint. */
  readonly sequenceMask: bigint;
  /** The shard and sequence fields together, all ones: `idFloor | lowMask` is `idCeiling`. */
  readonly lowMask: bigint;
}

/**
 * What {@link defineLayout} takes.
 *
 * @example
 * const options: LayoutOptions = { epoch: '2025-01-01', timeBits: 42, shardBits: 8, sequenceBits: 13 };
 */
export interface LayoutOptions {
  /** Shown in messages; defaults to `'custom'`. */
  readonly name?: string;
  /** Unix ms ≥ 0, a `Date`, or an ISO 8601 string (`'2024-01-01'`, or with a time and `Z`/offset). */
  readonly epoch: number | Date | string;
  readonly timeBits: number;
  readonly shardBits: number;
  readonly sequenceBits: number;
}

/**
 * Validates a layout and precomputes its constants. Refuses bits that are not integers, fields
 * that exceed 64 bits together, a bad epoch, and a layout whose lifetime has already ended.
 *
 * @example
 * const layout = defineLayout({ name: 'orders', epoch: '2025-01-01', timeBits: 42, shardBits: 8, sequenceBits: 13 });
 */
export function defineLayout(options: LayoutOptions): Layout {
  const layout = createLayout(options);
  const now = Date.now();
  if (layout.lastMs < now) {
    throw new SheafError(
      'TIME_EXHAUSTED',
      `layout "${layout.name}" ran out at ${formatTime(layout.lastMs)} (${lifetimeLimit(layout)}); ` +
        'choose a later epoch or more time bits',
      { details: { layout: layout.name, lastTime: formatTime(layout.lastMs), now: formatTime(now) } },
    );
  }
  return layout;
}

/**
 * {@link defineLayout} without the clock check. Presets use it so that importing the package never
 * fails because a preset has run out: its old ids must stay decodable.
 *
 * @example
 * const legacy = createLayout({ name: 'legacy', epoch: 0, timeBits: 30, shardBits: 0, sequenceBits: 10 });
 */
export function createLayout(options: LayoutOptions): Layout {
  if (typeof options !== 'object' || options === null) {
    throw new SheafError('INVALID_LAYOUT', `layout options ${formatValue(options)} are not an object`);
  }
  const name = layoutName(options.name);
  const { timeBits, shardBits, sequenceBits } = options;
  checkBits(name, 'timeBits', timeBits, 1);
  checkBits(name, 'shardBits', shardBits, 0);
  checkBits(name, 'sequenceBits', sequenceBits, 1);
  const total = timeBits + shardBits + sequenceBits;
  if (total > 64) {
    throw new SheafError(
      'INVALID_LAYOUT',
      `layout "${name}" needs ${total} bits (${timeBits} time + ${shardBits} shard + ${sequenceBits} sequence); ` +
        'the maximum is 64',
      { details: { layout: name, timeBits, shardBits, sequenceBits, total, max: 64 } },
    );
  }
  const epoch = epochMs(name, options.epoch);
  return Object.freeze(derive(name, epoch, timeBits, shardBits, sequenceBits));
}

function derive(name: string, epoch: number, timeBits: number, shardBits: number, sequenceBits: number): Layout {
  const lowBits = BigInt(shardBits + sequenceBits);
  const byTimeBits = (1n << BigInt(timeBits)) - 1n;
  const bySignBit = maxSignedId >> lowBits;
  const maxOffset = byTimeBits < bySignBit ? byTimeBits : bySignBit;
  const lastMs = Math.min(Number(BigInt(epoch) + maxOffset), maxDateMs);
  const lowMask = (1n << lowBits) - 1n;
  const maxId = (BigInt(lastMs - epoch) << lowBits) | lowMask;
  return {
    name,
    epoch,
    timeBits,
    shardBits,
    sequenceBits,
    maxShard: 2 ** shardBits - 1,
    maxSequence: 2 ** sequenceBits - 1,
    lastMs,
    maxId,
    safeIntegerIds: maxId <= BigInt(Number.MAX_SAFE_INTEGER),
    timeShift: lowBits,
    shardShift: BigInt(sequenceBits),
    shardMask: (1n << BigInt(shardBits)) - 1n,
    sequenceMask: (1n << BigInt(sequenceBits)) - 1n,
    lowMask,
  };
}

/**
 * Why `layout` ends where it does, for messages: the sign bit is what stops `instagram` (41 + 13 + 10 = 64 bits).
 *
 * @example
 * lifetimeLimit(presets.instagram); // 'the sign bit must stay 0'
 */
export function lifetimeLimit(layout: Layout): string {
  if (layout.lastMs === maxDateMs) return 'a JavaScript Date ends there';
  if (layout.timeBits + layout.shardBits + layout.sequenceBits === 64) return 'the sign bit must stay 0';
  return `${layout.timeBits} time bits are full`;
}

function layoutName(name: unknown): string {
  if (name === undefined) return 'custom';
  if (typeof name === 'string' && name.length > 0) return name;
  throw new SheafError('INVALID_LAYOUT', `layout name ${formatValue(name)} is not a non-empty string`, {
    details: { name: jsonSafe(name) },
  });
}

function checkBits(layout: string, field: string, value: unknown, min: number): asserts value is number {
  if (Number.isInteger(value) && (value as number) >= min && (value as number) <= 64) return;
  throw new SheafError(
    'INVALID_LAYOUT',
    `layout "${layout}": ${field} ${formatValue(value)} is not an integer from ${min} to 64`,
    { details: { layout, field, value: jsonSafe(value), min, max: 64 } },
  );
}

function epochMs(layout: string, epoch: unknown): number {
  let ms = Number.NaN;
  if (typeof epoch === 'number') ms = epoch;
  else if (epoch instanceof Date) ms = epoch.getTime();
  else if (typeof epoch === 'string') ms = parseIsoUtc(epoch);
  if (Number.isSafeInteger(ms) && ms >= 0 && ms <= maxDateMs) return ms;
  const expected =
    typeof epoch === 'string'
      ? "a valid ISO 8601 date ('2024-01-01') or date-time with Z or an offset ('2024-01-01T00:00:00Z') from 1970 on"
      : `an integer unix millisecond from 0 to ${maxDateMs}`;
  throw new SheafError('INVALID_LAYOUT', `layout "${layout}": epoch ${formatValue(epoch)} is not ${expected}`, {
    details: { layout, epoch: epoch instanceof Date ? formatValue(epoch) : jsonSafe(epoch) },
  });
}

/** Strict ISO 8601 to unix ms, NaN when malformed or impossible. */
function parseIsoUtc(text: string): number {
  const match = isoDateTime.exec(text);
  if (match === null) return Number.NaN;
  const [
    ,
    year,
    month,
    day,
    hour = '00',
    minute = '00',
    second = '00',
    fraction = '',
    sign,
    offsetHour = '00',
    offsetMinute = '00',
  ] = match;
  const wall = `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  const ms = Date.parse(`${wall}.${fraction.padEnd(3, '0')}Z`);
  // Date.parse rolls impossible fields over ('2024-02-30' becomes March 1): it must print back what it read.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== wall) return Number.NaN;
  if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return Number.NaN;
  const offset = (Number(offsetHour) * 60 + Number(offsetMinute)) * 60_000;
  return sign === '-' ? ms + offset : ms - offset;
}
