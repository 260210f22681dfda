import { defineLayout, parseId, presets } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';

const maxSigned = 2n ** 63n - 1n;

describe('parseId accepts', () => {
  it.each([
    ['0', 0n],
    ['123', 123n],
    ['007', 7n],
    ['-0', 0n],
    ['9223372036854775807', maxSigned],
    [`${'0'.repeat(50)}5`, 5n],
    ['0'.repeat(50), 0n],
    [0, 0n],
    [-0, 0n],
    [123, 123n],
    [Number.MAX_SAFE_INTEGER, 9007199254740991n],
    [0n, 0n],
    [maxSigned, maxSigned],
  ] as const)('%s', (value, expected) => {
    expect(parseId(value)).toBe(expected);
  });

  it('checks against the layout it is given', () => {
    expect(parseId('9007199254740991', presets.js53)).toBe(9007199254740991n);
    expectSheafError(
      () => parseId('9007199254740992', presets.js53),
      'ID_OUT_OF_RANGE',
      'layout "js53" (0 to 9007199254740991)',
    );
  });
});

describe('parseId refuses strings that are not decimal digits', () => {
  it.each([
    '',
    ' ',
    ' 1',
    '1 ',
    '1\n',
    '\t1',
    '+1',
    '--1',
    '-',
    '1e5',
    '1E5',
    '0x10',
    '0b1',
    '1.0',
    '1.',
    '1_000',
    '1,000',
    '12a',
    'Infinity',
    'NaN',
    '١٢٣',
    '１２３',
  ])('%j', (value) => {
    const error = expectSheafError(
      () => parseId(value),
      'INVALID_ID',
      `id ${JSON.stringify(value)} is not a string of decimal digits`,
    );
    expect(error.details).toEqual({ value });
  });

  it('truncates a long value in the message', () => {
    const value = `${'1'.repeat(1000)}x`;
    const error = expectSheafError(() => parseId(value), 'INVALID_ID', '(1001 characters)');
    expect(error.message.length).toBeLessThan(120);
  });
});

describe('parseId refuses numbers that are not safe integers', () => {
  it.each([1.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, 2 ** 63])(
    '%d',
    (value) => {
      expectSheafError(
        () => parseId(value),
        'INVALID_ID',
        `id ${value} is not a safe integer; pass a string or bigint`,
      );
    },
  );
});

describe('parseId refuses ids outside the layout', () => {
  it.each([
    ['-1', '"-1"'],
    [-1, '-1'],
    [-1n, '-1'],
    [-maxSigned - 1n, '-9223372036854775808'],
    ['-9223372036854775808', '"-9223372036854775808"'],
    [maxSigned + 1n, '9223372036854775808'],
    ['9223372036854775808', '"9223372036854775808"'],
    ['9999999999999999999', '"9999999999999999999"'],
    ['18446744073709551615', '"18446744073709551615"'],
    [2n ** 64n, '18446744073709551616'],
  ] as const)('%s', (value, shown) => {
    const error = expectSheafError(
      () => parseId(value),
      'ID_OUT_OF_RANGE',
      `id ${shown} is outside layout "sheaf" (0 to 9223372036854775807)`,
    );
    expect(error.details).toMatchObject({ layout: 'sheaf', min: '0', max: '9223372036854775807' });
  });

  it('refuses a huge digit string without parsing it, and keeps the message short', () => {
    const value = '9'.repeat(1_000_000);
    const error = expectSheafError(() => parseId(value), 'ID_OUT_OF_RANGE', '(1000000 characters)');
    expect(error.message.length).toBeLessThan(200);
    expectSheafError(() => parseId(`-${'0'.repeat(30)}5`), 'ID_OUT_OF_RANGE');
  });

  it('uses the maximum of a narrower layout', () => {
    const layout = defineLayout({ name: 'narrow', epoch: '2200-01-01', timeBits: 20, shardBits: 2, sequenceBits: 2 });
    expect(parseId(String(layout.maxId), layout)).toBe(2n ** 24n - 1n);
    expectSheafError(() => parseId(2 ** 24, layout), 'ID_OUT_OF_RANGE', 'layout "narrow" (0 to 16777215)');
  });
});

describe('parseId refuses other types', () => {
  it.each([null, undefined, {}, [], ['1'], true, () => 1, Symbol('id'), new Date(0)])('%s', (value) => {
    expectSheafError(() => parseId(value as never), 'INVALID_ID', 'is not a bigint, string or number');
  });

  it('does not call toString or valueOf on objects', () => {
    const sneaky = { toString: () => '1', valueOf: () => 1 };
    expectSheafError(() => parseId(sneaky as never), 'INVALID_ID', 'id an object is not a bigint, string or number');
  });
});
