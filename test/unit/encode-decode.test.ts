import { decodeId, defineLayout, encodeId, type Layout, presets } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

/** The bit layout written out independently of the implementation. */
function reference(layout: Layout, ms: number, shardId: number, sequence: number): bigint {
  const { epoch, shardBits, sequenceBits } = layout;
  return (
    (BigInt(ms - epoch) << BigInt(shardBits + sequenceBits)) |
    (BigInt(shardId) << BigInt(sequenceBits)) |
    BigInt(sequence)
  );
}

const layouts: Layout[] = [
  ...Object.values(presets),
  defineLayout({ name: 'no-shard', epoch: '2024-01-01', timeBits: 42, shardBits: 0, sequenceBits: 21 }),
  defineLayout({ name: 'wide-low', epoch: '2200-01-01', timeBits: 10, shardBits: 40, sequenceBits: 14 }),
  defineLayout({ name: 'sign-bit', epoch: '2200-01-01', timeBits: 2, shardBits: 30, sequenceBits: 32 }),
];

describe('encodeId and decodeId', () => {
  it('encode the documented example', () => {
    const id = encodeId({ time: Date.parse('2024-01-01T00:00:01Z'), shardId: 1, sequence: 2 });
    expect(id).toBe(4194305026n);
    expect(decodeId(id)).toEqual({
      timestamp: new Date('2024-01-01T00:00:01Z'),
      ms: 1704067201000,
      shardId: 1,
      sequence: 2,
    });
  });

  it.each(layouts.map((layout) => [layout.name, layout] as const))('round-trip random parts on %s', (_name, layout) => {
    const random = seededRandom(layout.timeBits * 4096 + layout.shardBits * 64 + layout.sequenceBits);
    for (let i = 0; i < 2000; i++) {
      const ms = random.int(layout.epoch, layout.lastMs);
      const shardId = random.int(0, layout.maxShard);
      const sequence = random.int(0, layout.maxSequence);
      const id = encodeId({ time: ms, shardId, sequence }, layout);
      expect(id).toBe(reference(layout, ms, shardId, sequence));
      expect(id >= 0n && id <= layout.maxId).toBe(true);
      expect(decodeId(id, layout)).toEqual({ timestamp: new Date(ms), ms, shardId, sequence });
      expect(decodeId(String(id), layout).ms).toBe(ms);
    }
  });

  it.each(layouts.map((layout) => [layout.name, layout] as const))(
    'round-trip both ends of every field on %s',
    (_name, layout) => {
      for (const ms of [layout.epoch, layout.epoch + 1, layout.lastMs - 1, layout.lastMs]) {
        if (ms < layout.epoch) continue;
        for (const shardId of [0, layout.maxShard]) {
          for (const sequence of [0, layout.maxSequence]) {
            const id = encodeId({ time: new Date(ms), shardId, sequence }, layout);
            expect(id).toBe(reference(layout, ms, shardId, sequence));
            expect(decodeId(id, layout)).toEqual({ timestamp: new Date(ms), ms, shardId, sequence });
          }
        }
      }
      expect(encodeId({ time: layout.epoch, shardId: 0, sequence: 0 }, layout)).toBe(0n);
      expect(encodeId({ time: layout.lastMs, shardId: layout.maxShard, sequence: layout.maxSequence }, layout)).toBe(
        layout.maxId,
      );
    },
  );

  it('orders ids by time, then shard, then sequence', () => {
    const random = seededRandom(99);
    const layout = presets.sheaf;
    const parts = Array.from({ length: 3000 }, () => ({
      time: random.int(layout.epoch, layout.epoch + 50),
      shardId: random.int(0, 3),
      sequence: random.int(0, layout.maxSequence),
    }));
    const byParts = [...parts].sort((a, b) => a.time - b.time || a.shardId - b.shardId || a.sequence - b.sequence);
    const byId = [...parts].sort((a, b) => {
      const difference = encodeId(a) - encodeId(b);
      return difference < 0n ? -1 : difference > 0n ? 1 : 0;
    });
    expect(byId).toEqual(byParts);
  });

  it('accepts a Date or a unix ms alike', () => {
    const time = new Date('2025-05-05T05:05:05.555Z');
    expect(encodeId({ time, shardId: 9, sequence: 9 })).toBe(
      encodeId({ time: time.getTime(), shardId: 9, sequence: 9 }),
    );
  });

  it('treats -0 as 0', () => {
    expect(encodeId({ time: presets.sheaf.epoch, shardId: -0, sequence: -0 })).toBe(0n);
  });

  it('decodes bigint, string and number forms of the same id alike', () => {
    const id = encodeId({ time: Date.parse('2024-03-03T03:03:03.003Z'), shardId: 0, sequence: 7 }, presets.js53);
    const expected = decodeId(id, presets.js53);
    expect(decodeId(String(id), presets.js53)).toEqual(expected);
    expect(decodeId(Number(id), presets.js53)).toEqual(expected);
  });

  it('decodes through parseId, with its errors', () => {
    expectSheafError(() => decodeId('12a'), 'INVALID_ID', '"12a"');
    expectSheafError(() => decodeId(-1n), 'ID_OUT_OF_RANGE', '(0 to 9223372036854775807)');
    expectSheafError(() => decodeId(2 ** 60), 'INVALID_ID', 'is not a safe integer');
  });
});

describe('encodeId refuses times outside the layout', () => {
  const layout = presets.sheaf;

  it('before the epoch, naming it', () => {
    const error = expectSheafError(
      () => encodeId({ time: layout.epoch - 1, shardId: 0, sequence: 0 }),
      'TIME_BEFORE_EPOCH',
      'time 2023-12-31T23:59:59.999Z is before the epoch 2024-01-01T00:00:00.000Z of layout "sheaf"',
    );
    expect(error.details).toEqual({
      layout: 'sheaf',
      time: '2023-12-31T23:59:59.999Z',
      epoch: '2024-01-01T00:00:00.000Z',
    });
  });

  it('far before the epoch, beyond the range of Date', () => {
    expectSheafError(
      () => encodeId({ time: -9e15, shardId: 0, sequence: 0 }),
      'TIME_BEFORE_EPOCH',
      '-9000000000000000 ms',
    );
  });

  it('after the lifetime, naming the date it ran out', () => {
    const error = expectSheafError(
      () => encodeId({ time: layout.lastMs + 1, shardId: 0, sequence: 0 }),
      'TIME_EXHAUSTED',
      'time 2093-09-06T15:47:35.552Z is after 2093-09-06T15:47:35.551Z, the last instant layout "sheaf" can encode',
      '(41 time bits are full)',
    );
    expect(error.details).toMatchObject({ lastTime: '2093-09-06T15:47:35.551Z' });
  });

  it('far after the lifetime, beyond the range of Date', () => {
    expectSheafError(() => encodeId({ time: 9e15, shardId: 0, sequence: 0 }), 'TIME_EXHAUSTED', '9000000000000000 ms');
  });

  it.each([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [1704067200000.5, '1704067200000.5'],
    [2 ** 53, '9007199254740992'],
    [new Date(Number.NaN), 'Invalid Date'],
    ['2024-06-01T00:00:00Z', '"2024-06-01T00:00:00Z"'],
    [1704067200000n, '1704067200000'],
    [null, 'null'],
    [undefined, 'undefined'],
  ])('that are not a valid Date or integer ms: %s', (time, shown) => {
    expectSheafError(
      () => encodeId({ time: time as never, shardId: 0, sequence: 0 }),
      'INVALID_TIME',
      `time ${shown} is not a valid Date or integer unix millisecond`,
    );
  });
});

describe('encodeId refuses shard and sequence values that do not fit', () => {
  const time = Date.parse('2024-06-01T00:00:00Z');

  it('names the shard, the bits and the maximum', () => {
    const error = expectSheafError(
      () => encodeId({ time, shardId: 5000, sequence: 0 }),
      'SHARD_OUT_OF_RANGE',
      'shard 5000 does not fit 12 shard bits (max 4095)',
    );
    expect(error.message).toBe('sheaf: shard 5000 does not fit 12 shard bits (max 4095)');
    expect(error.details).toEqual({ shard: 5000, bits: 12, max: 4095 });
  });

  it.each([
    [4096, 'shard 4096 does not fit 12 shard bits (max 4095)'],
    [-1, 'shard -1 does not fit 12 shard bits (max 4095)'],
    [1.5, 'shard 1.5 is not an integer (12 shard bits, max 4095)'],
    [Number.NaN, 'shard NaN is not an integer'],
    [Number.POSITIVE_INFINITY, 'shard Infinity is not an integer'],
    ['5', 'shard "5" is not an integer'],
    // With its n: a bare 5 would read as an integer that was refused.
    [5n, 'shard 5n is not an integer'],
    [undefined, 'shard undefined is not an integer'],
  ])('shard %s', (shardId, message) => {
    expectSheafError(() => encodeId({ time, shardId: shardId as never, sequence: 0 }), 'SHARD_OUT_OF_RANGE', message);
  });

  it.each([
    [1024, 'sequence 1024 does not fit 10 sequence bits (max 1023)'],
    [-1, 'sequence -1 does not fit 10 sequence bits (max 1023)'],
    [0.5, 'sequence 0.5 is not an integer (10 sequence bits, max 1023)'],
    [null, 'sequence null is not an integer'],
  ])('sequence %s', (sequence, message) => {
    expectSheafError(
      () => encodeId({ time, shardId: 0, sequence: sequence as never }),
      'SEQUENCE_OUT_OF_RANGE',
      message,
    );
  });

  it('uses the limits of the layout it is given', () => {
    expectSheafError(
      () => encodeId({ time, shardId: 1024, sequence: 0 }, presets.twitter),
      'SHARD_OUT_OF_RANGE',
      'shard 1024 does not fit 10 shard bits (max 1023)',
    );
    expectSheafError(
      () => encodeId({ time, shardId: 0, sequence: 4096 }, presets.twitter),
      'SEQUENCE_OUT_OF_RANGE',
      'sequence 4096 does not fit 12 sequence bits (max 4095)',
    );
    const noShard = layouts.find((layout) => layout.name === 'no-shard') as Layout;
    expectSheafError(
      () => encodeId({ time, shardId: 1, sequence: 0 }, noShard),
      'SHARD_OUT_OF_RANGE',
      'shard 1 does not fit 0 shard bits (max 0)',
    );
  });

  it('never wraps a field into its neighbour', () => {
    const layout = presets.js53;
    expectSheafError(() => encodeId({ time, shardId: 16, sequence: 0 }, layout), 'SHARD_OUT_OF_RANGE');
    expectSheafError(() => encodeId({ time, shardId: 0, sequence: 256 }, layout), 'SEQUENCE_OUT_OF_RANGE');
  });

  it('refuses a field above 2^53-1 in a field wider than 53 bits instead of rounding it into the next field', () => {
    // Nine bits of time last half a second: a future epoch, encoded at the epoch itself.
    const at = Date.parse('2200-01-01T00:00:00Z');
    const wide = defineLayout({ name: 'wide', epoch: '2200-01-01', timeBits: 9, shardBits: 0, sequenceBits: 54 });
    expectSheafError(
      () => encodeId({ time: at, shardId: 0, sequence: 2 ** 54 }, wide),
      'SEQUENCE_OUT_OF_RANGE',
      'sequence 18014398509481984 is not a safe integer',
    );
    const wideShard = defineLayout({
      name: 'wide-shard',
      epoch: '2200-01-01',
      timeBits: 8,
      shardBits: 54,
      sequenceBits: 1,
    });
    expectSheafError(() => encodeId({ time: at, shardId: 2 ** 54, sequence: 0 }, wideShard), 'SHARD_OUT_OF_RANGE');
    const largest = encodeId({ time: at, shardId: 0, sequence: Number.MAX_SAFE_INTEGER }, wide);
    expect(decodeId(largest, wide).sequence).toBe(Number.MAX_SAFE_INTEGER);
  });
});
