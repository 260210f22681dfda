import { SheafError } from './errors.js';
import { formatValue, jsonSafe } from './format.js';
import type { Layout } from './layout.js';
import { checkLayout } from './layout-check.js';
import { defaultLayout } from './presets.js';

const decimal = /^-?\d+$/;

/** 2^63 − 1 has 19 digits: more significant digits than that are out of range for every layout. */
const maxIdDigits = 19;

/**
 * Turns an id from a driver, a URL or JSON into a bigint checked against `layout`: strings of decimal
 * digits, safe-integer numbers and bigints, from 0n to `layout.maxId`. Throws `INVALID_ID` for
 * anything else (hex, exponents, spaces, unsafe numbers), `ID_OUT_OF_RANGE` outside the range, and
 * `INVALID_LAYOUT` when `layout` is not a layout.
 *
 * @example
 * parseId('4194305026'); // 4194305026n
 */
export function parseId(value: bigint | string | number, layout: Layout = defaultLayout): bigint {
  checkLayout(layout);
  let id: bigint;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'string') id = fromString(value, layout);
  else if (typeof value === 'number') id = fromNumber(value);
  else {
    throw new SheafError('INVALID_ID', `id ${formatValue(value)} is not a bigint, string or number`, {
      details: { type: value === null ? 'null' : typeof value },
    });
  }
  if (id < 0n || id > layout.maxId) throw outOfRange(value, layout);
  return id;
}

function fromString(value: string, layout: Layout): bigint {
  if (!decimal.test(value)) {
    throw new SheafError('INVALID_ID', `id ${formatValue(value)} is not a string of decimal digits`, {
      details: { value },
    });
  }
  // Checked before BigInt() so that a huge digit string costs a regex scan, not a bignum parse.
  const digits = value.length > maxIdDigits + 1 ? value.replace(/^(-?)0+(?=\d)/, '$1') : value;
  if (digits.length - (digits.startsWith('-') ? 1 : 0) > maxIdDigits) throw outOfRange(value, layout);
  return BigInt(digits);
}

function fromNumber(value: number): bigint {
  if (!Number.isSafeInteger(value)) {
    throw new SheafError(
      'INVALID_ID',
      `id ${formatValue(value)} is not a safe integer; pass a string or bigint (numbers above 2^53 − 1 lose digits)`,
      { details: { value } },
    );
  }
  return BigInt(value);
}

function outOfRange(value: unknown, layout: Layout): SheafError {
  return new SheafError(
    'ID_OUT_OF_RANGE',
    `id ${formatValue(value)} is outside layout "${layout.name}" (0 to ${layout.maxId})`,
    { details: { value: jsonSafe(value), layout: layout.name, min: '0', max: layout.maxId.toString() } },
  );
}
