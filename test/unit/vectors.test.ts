import { readFileSync } from 'node:fs';
import { decodeId, encodeId, layoutByName, presets } from '@sheaf/core';
import { describe, expect, it } from 'vitest';

/** One row of test/fixtures/vectors.json, shared with the SQL tests. */
interface Vector {
  layout: string;
  ms: number;
  time: string;
  shardId: number;
  sequence: number;
  id: string;
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors.json', import.meta.url), 'utf8')) as Vector[];

describe('test/fixtures/vectors.json', () => {
  it.each(Object.values(presets).map((layout) => [layout.name, layout] as const))(
    'covers both ends of every field of %s',
    (name, layout) => {
      const own = vectors.filter((vector) => vector.layout === name);
      const has = (predicate: (vector: Vector) => boolean) => expect(own.some(predicate)).toBe(true);
      has((vector) => vector.ms === layout.epoch && vector.id === '0');
      has((vector) => vector.ms === layout.lastMs && vector.id === String(layout.maxId));
      for (const shardId of [0, layout.maxShard]) has((vector) => vector.shardId === shardId);
      for (const sequence of [0, layout.maxSequence]) has((vector) => vector.sequence === sequence);
      has((vector) => vector.ms > layout.epoch && vector.ms < layout.lastMs - 1);
    },
  );

  it('writes time as ISO 8601 UTC with milliseconds, equal to ms', () => {
    for (const vector of vectors) {
      expect(vector.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(vector.time)).toBe(vector.ms);
    }
  });
});

describe.each(
  vectors.map((vector) => [`${vector.layout} ${vector.time} ${vector.shardId}/${vector.sequence}`, vector] as const),
)('vector %s', (_title, vector) => {
  const layout = layoutByName(vector.layout);

  it('encodes to its id', () => {
    expect(encodeId({ time: vector.ms, shardId: vector.shardId, sequence: vector.sequence }, layout)).toBe(
      BigInt(vector.id),
    );
    expect(encodeId({ time: new Date(vector.time), shardId: vector.shardId, sequence: vector.sequence }, layout)).toBe(
      BigInt(vector.id),
    );
  });

  it('decodes from its id', () => {
    const expected = {
      timestamp: new Date(vector.time),
      ms: vector.ms,
      shardId: vector.shardId,
      sequence: vector.sequence,
    };
    expect(decodeId(vector.id, layout)).toEqual(expected);
    expect(decodeId(BigInt(vector.id), layout)).toEqual(expected);
  });
});

// Literals computed by hand, independently of both the implementation and the vector generator.
describe('hand-checked vectors', () => {
  const find = (layout: string, id: string) => vectors.find((vector) => vector.layout === layout && vector.id === id);

  it.each([
    {
      // 1000 ms after the epoch: 1000 · 2^22 = 4_194_304_000; shard 1 · 2^10 = 1024; sequence 2.
      layout: 'sheaf',
      parts: { time: Date.parse('2024-01-01T00:00:01.000Z'), shardId: 1, sequence: 2 },
      id: 4_194_304_000n + 1024n + 2n,
      literal: '4194305026',
    },
    {
      // The worked example of Instagram's 2011 "Sharding & IDs" post: 1_387_263_000 ms after the
      // epoch, user 31341 on 2000 logical shards → shard 1341, sequence 5001 % 1024 = 905.
      // 1_387_263_000 · 2^23 = 11_637_205_499_904_000; 1341 · 2^10 = 1_373_184.
      layout: 'instagram',
      parts: { time: 1314220021721 + 1_387_263_000, shardId: 31341 % 2000, sequence: 5001 % 1024 },
      id: 11_637_205_499_904_000n + 1_373_184n + 905n,
      literal: '11637205501278089',
    },
    {
      // 2013-01-01 is 1_356_998_400_000 − 1_288_834_974_657 = 68_163_425_343 ms after the epoch;
      // · 2^22 = 285_898_127_569_846_272; worker 1 · 2^12 = 4096; sequence 1.
      layout: 'twitter',
      parts: { time: Date.parse('2013-01-01T00:00:00.000Z'), shardId: 1, sequence: 1 },
      id: 285_898_127_569_846_272n + 4096n + 1n,
      literal: '285898127569850369',
    },
    {
      // 1000 ms after the epoch: 1000 · 2^12 = 4_096_000; shard 1 · 2^8 = 256; sequence 2.
      layout: 'js53',
      parts: { time: Date.parse('2024-01-01T00:00:01.000Z'), shardId: 1, sequence: 2 },
      id: 4_096_000n + 256n + 2n,
      literal: '4096258',
    },
  ])('$layout: $literal', ({ layout, parts, id, literal }) => {
    expect(String(id)).toBe(literal);
    expect(encodeId(parts, layoutByName(layout))).toBe(id);
    expect(find(layout, literal)).toMatchObject({ ms: parts.time, shardId: parts.shardId, sequence: parts.sequence });
  });
});
