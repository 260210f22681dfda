import { decodeId, defineLayout, encodeId, idCeiling, idFloor, type Layout, presets } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

const layouts: Layout[] = [
  ...Object.values(presets),
  defineLayout({ name: 'wide-low', epoch: '2200-01-01', timeBits: 10, shardBits: 40, sequenceBits: 14 }),
];

describe.each(layouts.map((layout) => [layout.name, layout] as const))(
  'idFloor and idCeiling on %s',
  (_name, layout) => {
    it('are the ids of the smallest and largest shard and sequence at that ms', () => {
      const ms = Math.min(layout.epoch + 123_456_789, layout.lastMs);
      expect(idFloor(ms, layout)).toBe(encodeId({ time: ms, shardId: 0, sequence: 0 }, layout));
      expect(idCeiling(ms, layout)).toBe(
        encodeId({ time: ms, shardId: layout.maxShard, sequence: layout.maxSequence }, layout),
      );
      expect(idFloor(new Date(ms), layout)).toBe(idFloor(ms, layout));
      expect(idCeiling(new Date(ms), layout)).toBe(idCeiling(ms, layout));
    });

    it('bound every id made at that ms, and only those', () => {
      const random = seededRandom(layout.shardBits * 100 + layout.sequenceBits);
      for (let i = 0; i < 1000; i++) {
        const ms = random.int(layout.epoch, layout.lastMs);
        const id = encodeId(
          { time: ms, shardId: random.int(0, layout.maxShard), sequence: random.int(0, layout.maxSequence) },
          layout,
        );
        expect(idFloor(ms, layout) <= id && id <= idCeiling(ms, layout)).toBe(true);
        if (ms > layout.epoch) expect(idCeiling(ms - 1, layout)).toBeLessThan(id);
        if (ms < layout.lastMs) expect(idFloor(ms + 1, layout)).toBeGreaterThan(id);
      }
    });

    it('tile the id space: one ms ends where the next begins', () => {
      const random = seededRandom(11);
      for (let i = 0; i < 200; i++) {
        const ms = random.int(layout.epoch, layout.lastMs - 1);
        expect(idCeiling(ms, layout) + 1n).toBe(idFloor(ms + 1, layout));
      }
    });

    it('span the whole layout from epoch to lifetime', () => {
      expect(idFloor(layout.epoch, layout)).toBe(0n);
      expect(idCeiling(layout.lastMs, layout)).toBe(layout.maxId);
    });

    it('decode back to their ms', () => {
      const ms = layout.lastMs - 1;
      expect(decodeId(idFloor(ms, layout), layout)).toMatchObject({ ms, shardId: 0, sequence: 0 });
      expect(decodeId(idCeiling(ms, layout), layout)).toMatchObject({
        ms,
        shardId: layout.maxShard,
        sequence: layout.maxSequence,
      });
    });

    it('refuse times outside the layout like encodeId', () => {
      for (const bound of [idFloor, idCeiling]) {
        expectSheafError(() => bound(layout.epoch - 1, layout), 'TIME_BEFORE_EPOCH', `layout "${layout.name}"`);
        expectSheafError(
          () => bound(layout.lastMs + 1, layout),
          'TIME_EXHAUSTED',
          new Date(layout.lastMs).toISOString(),
        );
        expectSheafError(() => bound(new Date(Number.NaN), layout), 'INVALID_TIME', 'Invalid Date');
      }
    });
  },
);

describe('idFloor and idCeiling for a time range', () => {
  it('select exactly the ids made between two instants', () => {
    const from = Date.parse('2024-06-01T00:00:00.000Z');
    const to = Date.parse('2024-06-01T00:00:00.009Z');
    const random = seededRandom(2024);
    const made = Array.from({ length: 500 }, () => {
      const time = random.int(from - 10, to + 10);
      return { time, id: encodeId({ time, shardId: random.int(0, 4095), sequence: random.int(0, 1023) }) };
    });
    const low = idFloor(from);
    const high = idCeiling(to);
    const inRange = made.filter(({ id }) => id >= low && id <= high).map(({ time }) => time);
    const expected = made.filter(({ time }) => time >= from && time <= to).map(({ time }) => time);
    expect(inRange).toEqual(expected);
    expect(inRange.length).toBeGreaterThan(0);
  });

  it('default to the sheaf layout', () => {
    expect(idFloor(presets.sheaf.epoch + 1)).toBe(4194304n);
    expect(idCeiling(presets.sheaf.epoch + 1)).toBe(8388607n);
  });
});
