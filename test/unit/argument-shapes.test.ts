// Wrong-shaped arguments to the pure functions of @sheaf/core (issue 12): each must fail with a
// SheafError naming the bad value, never with a TypeError or a silently wrong result.
import {
  decodeId,
  defineLayout,
  encodeId,
  idCeiling,
  idFloor,
  type Layout,
  layoutByName,
  layoutLifetime,
  nextIdSql,
  parseId,
  presets,
  SheafError,
  sheafTriggerSql,
} from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { createLayout } from '../../packages/core/src/layout.js';
import { expectSheafError } from '../support/expect-sheaf-error.js';

const time = Date.parse('2025-01-01T00:00:00Z');

/** Every public function that takes a layout object, called with `layout`. */
const layoutTakers: Record<string, (layout: Layout) => unknown> = {
  encodeId: (layout) => encodeId({ time, shardId: 0, sequence: 0 }, layout),
  decodeId: (layout) => decodeId(1n, layout),
  parseId: (layout) => parseId('1', layout),
  idFloor: (layout) => idFloor(time, layout),
  idCeiling: (layout) => idCeiling(time, layout),
  layoutLifetime: (layout) => layoutLifetime(layout),
};

/** Things passed where a layout belongs, and what the message must name. */
const badLayouts: [string, unknown, string][] = [
  ['null', null, 'layout null is not a layout'],
  ['a number', 5, 'layout 5 is not a layout'],
  ['a preset name', 'sheaf', 'layout "sheaf" is not a layout'],
  ['an array', [], 'layout an array is not a layout'],
  ['an empty object', {}, 'layout "custom": timeBits undefined is not an integer from 1 to 64'],
  [
    'layout options not passed through defineLayout',
    { name: 'raw', epoch: '2024-01-01', timeBits: 41, shardBits: 12, sequenceBits: 10 },
    'layout "raw" has no maxId: these are layout options, not a layout',
  ],
  ['fractional bits', { ...presets.sheaf, shardBits: 1.5 }, 'shardBits 1.5 is not an integer from 0 to 64'],
  ['negative bits', { ...presets.sheaf, shardBits: -1 }, 'shardBits -1 is not an integer from 0 to 64'],
  ['NaN bits', { ...presets.sheaf, sequenceBits: Number.NaN }, 'sequenceBits NaN is not an integer from 1 to 64'],
  ['bits as text', { ...presets.sheaf, timeBits: '41' }, 'timeBits "41" is not an integer from 1 to 64'],
  ['bits over 64', { ...presets.sheaf, timeBits: 65 }, 'timeBits 65 is not an integer from 1 to 64'],
  ['65 bits in all', { ...presets.sheaf, shardBits: 14 }, 'needs 65 bits (41 time + 14 shard + 10 sequence)'],
  ['an epoch before 1970', { ...presets.sheaf, epoch: -1 }, 'epoch -1 is not an integer unix millisecond'],
  ['no name', { ...presets.sheaf, name: undefined }, 'name undefined does not match its epoch and bits'],
  [
    'derived fields of other bits',
    { ...presets.sheaf, shardBits: 13, timeBits: 40 },
    'layout "sheaf": maxShard 4095 does not match its epoch and bits (expected 8191)',
  ],
  ['a wrong maxId', { ...presets.js53, maxId: 2n ** 63n - 1n }, 'maxId 9223372036854775807 does not match'],
];

describe('a bad layout is INVALID_LAYOUT naming the bad value, in every function that takes one', () => {
  for (const [taker, call] of Object.entries(layoutTakers)) {
    it.each(badLayouts)(`${taker}: %s`, (_what, layout, fragment) => {
      expectSheafError(() => call(layout as Layout), 'INVALID_LAYOUT', fragment);
    });
  }
});

describe('layouts that are fine', () => {
  const copies: [string, Layout][] = [
    ['a preset', presets.twitter],
    ['a defineLayout result', defineLayout({ epoch: '2025-01-01', timeBits: 40, shardBits: 3, sequenceBits: 20 })],
    // What a second copy of @sheaf/core in the same process hands over: right fields, no identity of ours.
    ['a frozen copy', Object.freeze({ ...presets.twitter })],
    ['a mutable copy', { ...presets.twitter }],
    [
      'a layout that ran out, whose old ids must still decode',
      createLayout({ name: 'short', epoch: 0, timeBits: 30, shardBits: 2, sequenceBits: 10 }),
    ],
  ];

  it.each(copies)('%s works everywhere', (_what, layout) => {
    const id = encodeId({ time: layout.epoch + 5, shardId: 1, sequence: 2 }, layout);
    expect(decodeId(id, layout)).toMatchObject({ ms: layout.epoch + 5, shardId: 1, sequence: 2 });
    expect(parseId(id.toString(), layout)).toBe(id);
    expect(idFloor(layout.epoch + 5, layout) <= id && id <= idCeiling(layout.epoch + 5, layout)).toBe(true);
    expect(layoutLifetime(layout).getTime()).toBe(layout.lastMs);
  });

  it('checks a mutable copy again on every call: a change after its first use is refused', () => {
    const copy = { ...presets.sheaf };
    expect(decodeId(1n, copy).sequence).toBe(1);
    copy.shardBits = 13 as never;
    expectSheafError(() => decodeId(1n, copy), 'INVALID_LAYOUT', 'maxShard 4095 does not match');
  });
});

describe('an id that is not one is INVALID_ID', () => {
  it.each([
    ['null', null, 'id null'],
    ['undefined', undefined, 'id undefined'],
    ['an object', {}, 'id an object'],
    ['a boolean', true, 'id true'],
    ['a symbol', Symbol('x'), 'id Symbol(x)'],
  ])('%s', (_what, id, fragment) => {
    expectSheafError(() => decodeId(id as never), 'INVALID_ID', fragment);
    expectSheafError(() => parseId(id as never), 'INVALID_ID', fragment);
  });
});

describe('encodeId parts of the wrong shape', () => {
  it.each([
    ['null', null, 'INVALID_ARGUMENT', 'id parts null are not an object'],
    ['undefined', undefined, 'INVALID_ARGUMENT', 'id parts undefined are not an object'],
    ['an id', 5n, 'INVALID_ARGUMENT', 'id parts 5n are not an object'],
    ['an empty object', {}, 'INVALID_TIME', 'time undefined is not a valid Date'],
    ['no shard', { time }, 'SHARD_OUT_OF_RANGE', 'shard undefined is not an integer'],
    ['a bigint shard', { time, shardId: 5n, sequence: 0 }, 'SHARD_OUT_OF_RANGE', 'shard 5n is not an integer'],
    ['a shard as text', { time, shardId: '5', sequence: 0 }, 'SHARD_OUT_OF_RANGE', 'shard "5" is not an integer'],
    ['no sequence', { time, shardId: 0 }, 'SEQUENCE_OUT_OF_RANGE', 'sequence undefined is not an integer'],
    ['a NaN sequence', { time, shardId: 0, sequence: Number.NaN }, 'SEQUENCE_OUT_OF_RANGE', 'sequence NaN'],
  ] as const)('%s', (_what, parts, code, fragment) => {
    expectSheafError(() => encodeId(parts as never), code, fragment);
  });
});

describe('a shard sent to the database must be a non-negative integer', () => {
  it.each([
    ['null', null, 'shard null'],
    ['negative', -1, 'shard -1'],
    ['a fraction', 1.5, 'shard 1.5'],
    ['NaN', Number.NaN, 'shard NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'shard Infinity'],
    ['text', '5', 'shard "5"'],
    ['a bigint', 5n, 'shard 5n'],
  ])('nextIdSql: %s', (_what, shard, fragment) => {
    expectSheafError(() => nextIdSql(shard as never), 'SHARD_OUT_OF_RANGE', fragment, 'is not a non-negative integer');
  });

  it('nextIdSql takes a shard or none', () => {
    expect(nextIdSql()).toBe('sheaf.next_id()');
    expect(nextIdSql(7)).toBe('sheaf.next_id(7)');
  });
});

describe('sheafTriggerSql', () => {
  it.each([
    ['a bigint table', [5n, 'id'], 'table 5n must be a name of 1 to 64 characters'],
    ['no table', [undefined, 'id'], 'table undefined must be a name'],
    ['an empty table name', ['', 'id'], 'table "" must be a name'],
    ['a null column', ['orders', null], 'column null must be a name'],
    ['a long column', ['orders', 'c'.repeat(65)], '(65 characters) must be a name of 1 to 64 characters'],
    ['null options', ['orders', 'id', null], 'trigger options null are not an object'],
    ['options as text', ['orders', 'id', 'orders_id'], 'trigger options "orders_id" are not an object'],
    ['a numeric trigger name', ['orders', 'id', { name: 5 }], 'trigger name 5 must be a name'],
  ])('refuses %s with INVALID_ARGUMENT', (_what, args, fragment) => {
    const call = sheafTriggerSql as (...args: unknown[]) => unknown;
    expectSheafError(() => call(...args), 'INVALID_ARGUMENT', fragment);
  });
});

describe('layoutByName', () => {
  it.each([null, undefined, 5, '', 'toString', 'Sheaf'])('refuses %s with INVALID_LAYOUT', (name) => {
    expectSheafError(() => layoutByName(name as never), 'INVALID_LAYOUT', 'is not a preset; known layouts: sheaf');
  });
});

describe('SheafError', () => {
  it('is built even with null options, rather than throw a TypeError over the error it reports', () => {
    const error = new SheafError('INVALID_ID', 'boom', null);
    expect(error.message).toBe('sheaf: boom');
    expect(error.details).toBeUndefined();
  });
});
