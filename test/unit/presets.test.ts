import {
  decodeId,
  defaultLayout,
  defineLayout,
  encodeId,
  layoutByName,
  layoutLifetime,
  parseId,
  presets,
} from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

const maxSigned = 2n ** 63n - 1n;

describe('presets', () => {
  it('are exactly the layouts of DESIGN §1', () => {
    const fields = Object.values(presets).map(({ name, epoch, timeBits, shardBits, sequenceBits }) => ({
      name,
      epoch: new Date(epoch).toISOString(),
      bits: [timeBits, shardBits, sequenceBits],
    }));
    expect(fields).toEqual([
      { name: 'sheaf', epoch: '2024-01-01T00:00:00.000Z', bits: [41, 12, 10] },
      { name: 'instagram', epoch: '2011-08-24T21:07:01.721Z', bits: [41, 13, 10] },
      { name: 'twitter', epoch: '2010-11-04T01:42:54.657Z', bits: [41, 10, 12] },
      { name: 'js53', epoch: '2024-01-01T00:00:00.000Z', bits: [41, 4, 8] },
    ]);
    expect(presets.instagram.epoch).toBe(1314220021721);
    expect(presets.twitter.epoch).toBe(1288834974657);
  });

  it('default to sheaf', () => {
    expect(defaultLayout).toBe(presets.sheaf);
    expect(encodeId({ time: presets.sheaf.epoch + 1, shardId: 0, sequence: 1 })).toBe(
      encodeId({ time: presets.sheaf.epoch + 1, shardId: 0, sequence: 1 }, presets.sheaf),
    );
  });

  it('cannot be changed', () => {
    expect(Object.isFrozen(presets)).toBe(true);
    for (const layout of Object.values(presets)) expect(Object.isFrozen(layout)).toBe(true);
  });

  it('equal what defineLayout builds from the same numbers', () => {
    for (const preset of Object.values(presets)) {
      expect(defineLayout({ ...preset, name: preset.name })).toEqual(preset);
    }
  });

  it.each([
    ['sheaf', '2093-09-06T15:47:35.551Z'],
    ['instagram', '2046-06-27T17:00:49.496Z'],
    ['twitter', '2080-07-10T17:30:30.208Z'],
    ['js53', '2093-09-06T15:47:35.551Z'],
  ] as const)('%s lasts until %s', (name, lifetime) => {
    expect(layoutLifetime(presets[name]).toISOString()).toBe(lifetime);
  });

  it('shows that sheaf lasts 2^41 − 1 ms with its sign bit kept 0', () => {
    expect(presets.sheaf.lastMs - presets.sheaf.epoch).toBe(2 ** 41 - 1);
    expect(presets.sheaf.maxId).toBe(maxSigned);
  });
});

describe('instagram and the sign bit', () => {
  const layout = presets.instagram;

  it('ends where the sign bit would be needed, 2^40 − 1 ms after its epoch, not 2^41 − 1', () => {
    expect(layout.lastMs - layout.epoch).toBe(2 ** 40 - 1);
    expect(layout.lastMs).toBeLessThan(layout.epoch + 2 ** 41 - 1);
    expect(encodeId({ time: layout.lastMs, shardId: 8191, sequence: 1023 }, layout)).toBe(maxSigned);
  });

  it('refuses to encode past it, saying why', () => {
    expectSheafError(
      () => encodeId({ time: layout.lastMs + 1, shardId: 0, sequence: 0 }, layout),
      'TIME_EXHAUSTED',
      'after 2046-06-27T17:00:49.496Z',
      'layout "instagram"',
      'the sign bit must stay 0',
    );
  });

  it('rejects the negative ids that a wrapped 64-bit shift would produce', () => {
    const wrapped = BigInt.asIntN(64, BigInt(layout.lastMs + 1 - layout.epoch) << 23n);
    expect(wrapped).toBeLessThan(0n);
    expectSheafError(() => decodeId(wrapped, layout), 'ID_OUT_OF_RANGE', '9223372036854775807');
  });
});

describe('js53', () => {
  const layout = presets.js53;

  it('never exceeds 2^53 − 1', () => {
    expect(layout.maxId).toBe(BigInt(Number.MAX_SAFE_INTEGER));
    expect(layout.safeIntegerIds).toBe(true);
    expect(Object.values(presets).filter((preset) => preset.safeIntegerIds)).toEqual([layout]);
  });

  it('gives ids that survive a JavaScript number and JSON', () => {
    const random = seededRandom(53);
    for (let i = 0; i < 2000; i++) {
      const parts = {
        time: random.int(layout.epoch, layout.lastMs),
        shardId: random.int(0, 15),
        sequence: random.int(0, 255),
      };
      const id = encodeId(parts, layout);
      const asNumber = Number(id);
      expect(Number.isSafeInteger(asNumber)).toBe(true);
      const viaJson = JSON.parse(JSON.stringify({ id: asNumber })) as { id: number };
      expect(decodeId(viaJson.id, layout)).toMatchObject({
        ms: parts.time,
        shardId: parts.shardId,
        sequence: parts.sequence,
      });
    }
  });

  it('keeps 16 shards and 256 ids per ms per shard', () => {
    expect([layout.maxShard, layout.maxSequence]).toEqual([15, 255]);
    expect(parseId(Number.MAX_SAFE_INTEGER, layout)).toBe(layout.maxId);
  });
});

describe('layoutByName', () => {
  it('returns each preset by name', () => {
    for (const [name, layout] of Object.entries(presets)) expect(layoutByName(name)).toBe(layout);
  });

  it.each(['nope', 'Sheaf', '', 'toString', '__proto__', 'constructor'])('refuses %j, listing the presets', (name) => {
    const error = expectSheafError(
      () => layoutByName(name),
      'INVALID_LAYOUT',
      `layout ${JSON.stringify(name)} is not a preset; known layouts: sheaf, instagram, twitter, js53`,
    );
    expect(error.details).toMatchObject({ name, known: ['sheaf', 'instagram', 'twitter', 'js53'] });
  });

  it('refuses a non-string from JavaScript callers', () => {
    expectSheafError(() => layoutByName(undefined as never), 'INVALID_LAYOUT', 'layout undefined is not a preset');
  });
});
