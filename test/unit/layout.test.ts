import { decodeId, defineLayout, encodeId, idCeiling, type LayoutOptions, layoutLifetime } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

const base: LayoutOptions = {
  name: 'test',
  epoch: '2024-01-01T00:00:00Z',
  timeBits: 41,
  shardBits: 12,
  sequenceBits: 10,
};
const maxSigned = 2n ** 63n - 1n;
const maxDateMs = 8_640_000_000_000_000;

/** The lifetime rule written out independently: the time field must fit its bits and keep the sign bit 0. */
function expectedMaxOffset(timeBits: number, shardBits: number, sequenceBits: number): bigint {
  const byBits = 2n ** BigInt(timeBits) - 1n;
  const bySign = maxSigned / 2n ** BigInt(shardBits + sequenceBits);
  return byBits < bySign ? byBits : bySign;
}

describe('defineLayout', () => {
  it('precomputes the constants of a layout and freezes it', () => {
    const layout = defineLayout(base);
    expect(layout).toMatchObject({
      name: 'test',
      epoch: 1704067200000,
      timeBits: 41,
      shardBits: 12,
      sequenceBits: 10,
      maxShard: 4095,
      maxSequence: 1023,
      lastMs: 1704067200000 + 2 ** 41 - 1,
      maxId: maxSigned,
      safeIntegerIds: false,
      timeShift: 22n,
      shardShift: 10n,
      shardMask: 4095n,
      sequenceMask: 1023n,
      lowMask: 2n ** 22n - 1n,
    });
    expect(Object.isFrozen(layout)).toBe(true);
  });

  it('names a layout "custom" by default', () => {
    expect(defineLayout({ ...base, name: undefined }).name).toBe('custom');
  });

  it.each([
    ['unix ms', 1704067200000],
    ['Date', new Date('2024-01-01T00:00:00.000Z')],
    ['ISO date (UTC)', '2024-01-01'],
    ['ISO date-time with Z', '2024-01-01T00:00:00Z'],
    ['ISO date-time with ms', '2024-01-01T00:00:00.000Z'],
    ['ISO date-time without seconds', '2024-01-01T00:00Z'],
    ['ISO date-time with an offset', '2024-01-01T02:00:00+02:00'],
    ['ISO date-time with a negative offset', '2023-12-31T18:30:00.000-05:30'],
  ])('accepts an epoch as %s', (_kind, epoch) => {
    expect(defineLayout({ ...base, epoch }).epoch).toBe(1704067200000);
  });

  it('reads a one- or two-digit fraction as tenths or hundredths of a second', () => {
    expect(defineLayout({ ...base, epoch: '2024-01-01T00:00:00.5Z' }).epoch).toBe(1704067200500);
    expect(defineLayout({ ...base, epoch: '2024-01-01T00:00:00.05Z' }).epoch).toBe(1704067200050);
  });

  it.each([
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    maxDateMs + 1,
    new Date(Number.NaN),
    new Date(-1),
    '2024-01-01T00:00:00',
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:00:00.1234Z',
    '1969-12-31',
    '0050-01-01',
    ' 2024-01-01',
    '2024-1-1',
    'yesterday',
    '',
    null,
    undefined,
    1704067200000n,
  ])('refuses the epoch %s', (epoch) => {
    const error = expectSheafError(
      () => defineLayout({ ...base, epoch: epoch as never }),
      'INVALID_LAYOUT',
      'layout "test": epoch',
    );
    expect(error.details).toMatchObject({ layout: 'test' });
  });

  it('explains what an epoch string must look like', () => {
    expectSheafError(
      () => defineLayout({ ...base, epoch: '2024-01-01T00:00:00' }),
      'INVALID_LAYOUT',
      '"2024-01-01T00:00:00"',
      'Z or an offset',
    );
  });

  it.each([
    ['timeBits', 0, 1],
    ['timeBits', 65, 1],
    ['sequenceBits', 0, 1],
    ['sequenceBits', -1, 1],
    ['shardBits', -1, 0],
    ['shardBits', 1.5, 0],
    ['timeBits', Number.NaN, 1],
    ['sequenceBits', '10', 1],
    ['shardBits', undefined, 0],
    ['timeBits', null, 1],
  ])('refuses %s = %s', (field, value, min) => {
    const error = expectSheafError(
      () => defineLayout({ ...base, [field]: value }),
      'INVALID_LAYOUT',
      `layout "test": ${field}`,
      `integer from ${min} to 64`,
    );
    expect(error.details).toMatchObject({ field, min, max: 64 });
  });

  it('allows a layout without shard bits', () => {
    const layout = defineLayout({ ...base, shardBits: 0 });
    expect(layout.maxShard).toBe(0);
    expect(layout.shardMask).toBe(0n);
  });

  it('refuses more than 64 bits, naming each field', () => {
    expectSheafError(
      () => defineLayout({ ...base, shardBits: 13, sequenceBits: 11 }),
      'INVALID_LAYOUT',
      'layout "test" needs 65 bits (41 time + 13 shard + 11 sequence); the maximum is 64',
    );
  });

  it('accepts exactly 64 bits, paying with half of the time range for the sign bit', () => {
    const layout = defineLayout({ ...base, shardBits: 13 });
    expect(layout.lastMs - layout.epoch).toBe(2 ** 40 - 1);
    expect(layout.maxId).toBe(maxSigned);
  });

  it.each([{ name: '' }, { name: 5 }, { name: null }])('refuses the name $name', ({ name }) => {
    expectSheafError(() => defineLayout({ ...base, name: name as never }), 'INVALID_LAYOUT', 'layout name');
  });

  it('refuses options that are not an object', () => {
    expectSheafError(() => defineLayout(null as never), 'INVALID_LAYOUT', 'layout options null');
  });

  it('refuses a layout whose lifetime is over, naming the date it ran out', () => {
    const error = expectSheafError(
      () => defineLayout({ name: 'short', epoch: 0, timeBits: 30, shardBits: 0, sequenceBits: 10 }),
      'TIME_EXHAUSTED',
      'layout "short" ran out at 1970-01-13T10:15:41.823Z (30 time bits are full)',
    );
    expect(error.details).toMatchObject({ layout: 'short', lastTime: '1970-01-13T10:15:41.823Z' });
  });

  it('says when the sign bit ended a lifetime', () => {
    expectSheafError(
      () => defineLayout({ epoch: 0, timeBits: 41, shardBits: 13, sequenceBits: 10 }),
      'TIME_EXHAUSTED',
      'ran out at 2004-11-03T19:53:47.775Z (the sign bit must stay 0)',
    );
  });

  it('accepts an epoch in the future', () => {
    expect(defineLayout({ ...base, epoch: '2200-01-01' }).epoch).toBe(Date.UTC(2200, 0, 1));
  });
});

describe('layout lifetime', () => {
  it('follows min(2^timeBits − 1, floor((2^63 − 1) / 2^(shardBits + sequenceBits))) for random splits', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const sequenceBits = random.int(1, 40);
      const shardBits = random.int(0, 63 - sequenceBits);
      const timeBits = random.int(1, Math.min(64 - shardBits - sequenceBits, 45));
      const layout = defineLayout({ epoch: '2150-01-01', timeBits, shardBits, sequenceBits });
      const offset = expectedMaxOffset(timeBits, shardBits, sequenceBits);
      const context = `${timeBits}/${shardBits}/${sequenceBits}`;
      expect(BigInt(layout.lastMs - layout.epoch), context).toBe(offset);
      expect(layout.maxId, context).toBe((offset << BigInt(shardBits + sequenceBits)) | layout.lowMask);
      expect(layout.maxId <= maxSigned, context).toBe(true);
      expect(layout.safeIntegerIds, context).toBe(layout.maxId <= BigInt(Number.MAX_SAFE_INTEGER));
      expect(idCeiling(layout.lastMs, layout), context).toBe(layout.maxId);
    }
  });

  it('is the last encodable instant: one ms later is refused', () => {
    const layout = defineLayout(base);
    const lifetime = layoutLifetime(layout);
    expect(lifetime.getTime()).toBe(layout.lastMs);
    expect(encodeId({ time: lifetime, shardId: 4095, sequence: 1023 }, layout)).toBe(layout.maxId);
    expectSheafError(
      () => encodeId({ time: layout.lastMs + 1, shardId: 0, sequence: 0 }, layout),
      'TIME_EXHAUSTED',
      lifetime.toISOString(),
    );
  });

  it('stops at the last instant a Date can hold, so every id decodes to a valid Date', () => {
    const layout = defineLayout({ epoch: 0, timeBits: 62, shardBits: 0, sequenceBits: 1 });
    expect(layout.lastMs).toBe(maxDateMs);
    expect(layout.maxId).toBe((BigInt(maxDateMs) << 1n) | 1n);
    expect(decodeId(layout.maxId, layout).timestamp.toISOString()).toBe('+275760-09-13T00:00:00.000Z');
    expectSheafError(() => decodeId(layout.maxId + 1n, layout), 'ID_OUT_OF_RANGE');
    expectSheafError(
      () => encodeId({ time: maxDateMs + 1, shardId: 0, sequence: 0 }, layout),
      'TIME_EXHAUSTED',
      '8640000000000001 ms',
      'a JavaScript Date ends there',
    );
  });

  it('can be a single millisecond when the sign bit takes the only time bit', () => {
    const layout = defineLayout({ epoch: '2200-01-01', timeBits: 1, shardBits: 53, sequenceBits: 10 });
    expect(layout.lastMs).toBe(layout.epoch);
    expect(layout.maxId).toBe(maxSigned);
  });
});
