import { presets, type SheafErrorCode } from '@sheaf/core';

/** The layout of the explicit-id tests: its largest id, 2^53 − 1, fits BIGINT, so max + 1 reaches every path. */
export const layout = presets.js53;
const outside = `is outside layout "js53" (1 to ${layout.maxId})`;

/**
 * What the raw MySQL/MariaDB trigger does with a value it cannot judge as the adapters do, and why:
 * the documented gap (docs/errors.md, Explicit ids). `instead` is what happens then, where tested.
 */
export interface TriggerGap {
  readonly reason: string;
  readonly instead?: { readonly stored: 'assigned' | string } | { readonly code: SheafErrorCode } | 'server error';
}

/** A wrong explicit id: the code every path answers, and what the message must show. */
export interface WrongId {
  readonly what: string;
  readonly value: unknown;
  readonly code: SheafErrorCode;
  /** In every message, the trigger's included (which shows values unquoted). */
  readonly shows: readonly string[];
  readonly trigger?: TriggerGap;
}

const zero: TriggerGap = {
  reason: 'on an AUTO_INCREMENT column a BEFORE INSERT trigger reads 0 for a left-out id too: 0 means "assign one"',
  instead: { stored: 'assigned' },
};
const converted = (instead?: TriggerGap['instead']): TriggerGap => ({
  reason: 'the server converts a value that is not an integer before the trigger runs',
  ...(instead === undefined ? {} : { instead }),
});

export const wrongIds: readonly WrongId[] = [
  { what: '0', value: 0, code: 'ID_OUT_OF_RANGE', shows: ['explicit id 0 ', outside], trigger: zero },
  { what: '0n', value: 0n, code: 'ID_OUT_OF_RANGE', shows: ['explicit id 0 ', outside], trigger: zero },
  { what: "'0'", value: '0', code: 'ID_OUT_OF_RANGE', shows: ['explicit id "0"', outside], trigger: zero },
  { what: '-5', value: -5, code: 'ID_OUT_OF_RANGE', shows: ['explicit id -5 ', outside] },
  { what: '-5n', value: -5n, code: 'ID_OUT_OF_RANGE', shows: ['explicit id -5 ', outside] },
  { what: "'-5'", value: '-5', code: 'ID_OUT_OF_RANGE', shows: ['-5', outside] },
  {
    what: 'layout max + 1 (bigint)',
    value: layout.maxId + 1n,
    code: 'ID_OUT_OF_RANGE',
    shows: ['explicit id 9007199254740992 ', outside],
  },
  {
    what: 'layout max + 1 (string)',
    value: (layout.maxId + 1n).toString(),
    code: 'ID_OUT_OF_RANGE',
    shows: ['9007199254740992', outside],
  },
  {
    what: '1.5',
    value: 1.5,
    code: 'INVALID_ID',
    shows: ['explicit id 1.5 is not an integer'],
    trigger: converted({ stored: '2' }),
  },
  {
    what: "'abc'",
    value: 'abc',
    code: 'INVALID_ID',
    shows: ['explicit id "abc" is not a string of decimal digits'],
    trigger: converted('server error'),
  },
  {
    what: 'unsafe number 2 ** 53 + 1',
    value: 2 ** 53 + 1,
    code: 'INVALID_ID',
    shows: ['explicit id 9007199254740992 is not a safe integer'],
    trigger: {
      reason: 'a JavaScript number above 2^53 − 1 arrives already rounded: the server sees 2^53, out of range',
      instead: { code: 'ID_OUT_OF_RANGE' },
    },
  },
  {
    what: "'1.5'",
    value: '1.5',
    code: 'INVALID_ID',
    shows: ['"1.5" is not a string of decimal digits'],
    trigger: converted(),
  },
  {
    what: "'1e3'",
    value: '1e3',
    code: 'INVALID_ID',
    shows: ['"1e3" is not a string of decimal digits'],
    trigger: converted(),
  },
  {
    what: 'NaN',
    value: Number.NaN,
    code: 'INVALID_ID',
    shows: ['explicit id NaN is not an integer'],
    trigger: converted(),
  },
  {
    what: 'true',
    value: true,
    code: 'INVALID_ID',
    shows: ['explicit id true is not a bigint, a safe integer or a string of decimal digits'],
    trigger: converted(),
  },
];

/** Valid explicit ids in each accepted form, distinct per call so that every path stores its own. */
export function validIds(): Array<{ form: string; value: bigint | number | string; expected: string }> {
  const id = () => layout.maxId - BigInt(Math.floor(Math.random() * 2 ** 40));
  const [a, b, c] = [id(), id(), id()];
  return [
    { form: 'bigint', value: a, expected: a.toString() },
    { form: 'safe-integer number', value: Number(b), expected: b.toString() },
    { form: 'decimal string', value: c.toString(), expected: c.toString() },
  ];
}
