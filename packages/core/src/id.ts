import { SheafError } from './errors.js';
import { fieldError } from './field-error.js';
import { formatArgument, formatTime, formatValue, jsonSafe, typeName } from './format.js';
import { type Layout, lifetimeLimit } from './layout.js';
import { checkLayout } from './layout-check.js';
import { parseId } from './parse-id.js';
import { defaultLayout } from './presets.js';

/**
 * The fields of an id before encoding.
 *
 * @example
 * const parts: IdParts = { time: new Date(), shardId: 7, sequence: 0 };
 */
export interface IdParts {
  /** A `Date` or a unix millisecond (an integer, as `Date.now()` returns). */
  readonly time: Date | number;
  readonly shardId: number;
  readonly sequence: number;
}

/**
 * The fields of an id after decoding.
 *
 * @example
 * const { timestamp, shardId, sequence }: DecodedId = decodeId(id);
 */
export interface DecodedId {
  timestamp: Date;
  /** `timestamp` as a unix millisecond. */
  ms: number;
  shardId: number;
  sequence: number;
}

/**
 * Packs time, shard and sequence into an id of `layout`. Throws `INVALID_TIME`, `TIME_BEFORE_EPOCH`,
 * `TIME_EXHAUSTED`, `SHARD_OUT_OF_RANGE` or `SEQUENCE_OUT_OF_RANGE` rather than wrap a field;
 * `INVALID_ARGUMENT` when `parts` is not an object and `INVALID_LAYOUT` when `layout` is not a layout.
 *
 * @example
 * encodeId({ time: Date.parse('2024-01-01T00:00:01Z'), shardId: 1, sequence: 2 }); // 4194305026n
 */
export function encodeId(parts: IdParts, layout: Layout = defaultLayout): bigint {
  checkLayout(layout);
  if (typeof parts !== 'object' || parts === null) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `id parts ${formatArgument(parts)} are not an object { time, shardId, sequence }`,
      {
        details: { type: typeName(parts) },
      },
    );
  }
  const offset = timeOffset(parts.time, layout);
  const { shardId, sequence } = parts;
  // Safe integers only: a field wider than 53 bits has a max no Number holds exactly, and 2^54
  // compared against a rounded max would pass and spill into the next field.
  if (!(Number.isSafeInteger(shardId) && shardId >= 0 && shardId <= layout.maxShard)) {
    throw fieldError('SHARD_OUT_OF_RANGE', 'shard', shardId, layout.shardBits, layout.maxShard);
  }
  if (!(Number.isSafeInteger(sequence) && sequence >= 0 && sequence <= layout.maxSequence)) {
    throw fieldError('SEQUENCE_OUT_OF_RANGE', 'sequence', sequence, layout.sequenceBits, layout.maxSequence);
  }
  // Bigint temporaries dominate the cost; number arithmetic is exact below 2^53, so the shard and
  // sequence fields are combined as a number whenever they fit in 53 bits (every preset).
  if (layout.shardBits + layout.sequenceBits > 53) {
    return (BigInt(offset) << layout.timeShift) | (BigInt(shardId) << layout.shardShift) | BigInt(sequence);
  }
  return (BigInt(offset) << layout.timeShift) | BigInt(shardId * (layout.maxSequence + 1) + sequence);
}

/**
 * Splits an id of `layout` into its fields. Accepts what {@link parseId} accepts and throws what it throws.
 *
 * @example
 * decodeId(4194305026n); // { timestamp: 2024-01-01T00:00:01.000Z, ms: 1704067201000, shardId: 1, sequence: 2 }
 */
export function decodeId(id: bigint | string | number, layout: Layout = defaultLayout): DecodedId {
  // parseId checks the layout.
  const value = parseId(id, layout);
  const ms = Number(value >> layout.timeShift) + layout.epoch;
  if (layout.shardBits + layout.sequenceBits > 53) {
    const shardId = Number((value >> layout.shardShift) & layout.shardMask);
    return { timestamp: new Date(ms), ms, shardId, sequence: Number(value & layout.sequenceMask) };
  }
  // As in encodeId: one bigint-to-number conversion, then exact number arithmetic.
  const low = Number(value & layout.lowMask);
  const shardId = Math.floor(low / (layout.maxSequence + 1));
  return { timestamp: new Date(ms), ms, shardId, sequence: low - shardId * (layout.maxSequence + 1) };
}

/**
 * The smallest id `layout` can hold at that millisecond (shard 0, sequence 0): with {@link idCeiling},
 * bounds a time range on the primary key, `where id between idFloor(from) and idCeiling(to)`.
 *
 * @example
 * idFloor(new Date('2024-01-01T00:00:01Z')); // 4194304000n
 */
export function idFloor(time: Date | number, layout: Layout = defaultLayout): bigint {
  checkLayout(layout);
  return BigInt(timeOffset(time, layout)) << layout.timeShift;
}

/**
 * The largest id `layout` can hold at that millisecond (largest shard and sequence).
 *
 * @example
 * idCeiling(new Date('2024-01-01T00:00:01Z')); // 4198498303n
 */
export function idCeiling(time: Date | number, layout: Layout = defaultLayout): bigint {
  // idFloor checks the layout.
  return idFloor(time, layout) | layout.lowMask;
}

function timeOffset(time: Date | number, layout: Layout): number {
  const ms = typeof time === 'number' ? time : time instanceof Date ? time.getTime() : Number.NaN;
  if (!Number.isSafeInteger(ms)) {
    throw new SheafError('INVALID_TIME', `time ${formatValue(time)} is not a valid Date or integer unix millisecond`, {
      details: { time: jsonSafe(time) },
    });
  }
  if (ms < layout.epoch) {
    throw new SheafError(
      'TIME_BEFORE_EPOCH',
      `time ${formatTime(ms)} is before the epoch ${formatTime(layout.epoch)} of layout "${layout.name}"`,
      { details: { layout: layout.name, time: formatTime(ms), epoch: formatTime(layout.epoch) } },
    );
  }
  if (ms > layout.lastMs) {
    throw new SheafError(
      'TIME_EXHAUSTED',
      `time ${formatTime(ms)} is after ${formatTime(layout.lastMs)}, the last instant layout "${layout.name}" ` +
        `can encode (${lifetimeLimit(layout)})`,
      { details: { layout: layout.name, time: formatTime(ms), lastTime: formatTime(layout.lastMs) } },
    );
  }
  return ms - layout.epoch;
}
