import { SheafError } from './errors.js';
import { detailValue, formatValue, jsonSafe, typeName } from './format.js';
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

function fromString(value: string, layout: Layout, rule: Rule = parsed): bigint {
  if (!decimal.test(value)) {
    throw new SheafError('INVALID_ID', `${rule.noun} ${formatValue(value)} is not a string of decimal digits`, {
      details: { value },
    });
  }
  // Checked before BigInt() so that a huge digit string costs a regex scan, not a bignum parse.
  const digits = value.length > maxIdDigits + 1 ? value.replace(/^(-?)0+(?=\d)/, '$1') : value;
  if (digits.length - (digits.startsWith('-') ? 1 : 0) > maxIdDigits) throw outOfRange(value, layout, rule);
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

/** What a range error says: `parseId` reads ids from 0; an explicit id starts at 1. */
interface Rule {
  readonly noun: string;
  readonly min: bigint;
}

const parsed: Rule = { noun: 'id', min: 0n };
const explicit: Rule = { noun: 'explicit id', min: 1n };

function outOfRange(value: unknown, layout: Layout, rule: Rule = parsed): SheafError {
  // 0 is what AUTO_INCREMENT and sheaf's MySQL trigger read as "assign one": say how to ask for that.
  const hint = rule === explicit && isZero(value) ? '; leave the id out (undefined or null) to have one assigned' : '';
  return new SheafError(
    'ID_OUT_OF_RANGE',
    `${rule.noun} ${formatValue(value)} is outside layout "${layout.name}" (${rule.min} to ${layout.maxId})${hint}`,
    {
      details: { value: jsonSafe(value), layout: layout.name, min: rule.min.toString(), max: layout.maxId.toString() },
    },
  );
}

const isZero = (value: unknown) => value === 0 || value === 0n || (typeof value === 'string' && /^-?0+$/.test(value));

/**
 * The one rule for an id given explicitly to an insert (the ORM adapters, `insertWithIds`, drizzle's
 * `sheafId()` columns), returned as a bigint: a bigint, a safe-integer number or a string of decimal
 * digits, from 1 to `layout.maxId`. `ID_OUT_OF_RANGE` for 0 (which AUTO_INCREMENT and sheaf's MySQL
 * trigger take as "assign one"), negative ids and ids above the layout's largest; `INVALID_ID` for
 * fractions, unsafe numbers (already rounded), other strings and other types. See docs/errors.md,
 * Explicit ids.
 *
 * @example
 * checkExplicitId('4194305026'); // 4194305026n
 * checkExplicitId(0n); // throws ID_OUT_OF_RANGE: explicit id 0 is outside layout "sheaf" (1 to 9223372036854775807); …
 */
export function checkExplicitId(value: unknown, layout: Layout = defaultLayout): bigint {
  checkLayout(layout);
  let id: bigint;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'string') id = fromString(value, layout, explicit);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else throw invalidExplicitId(value);
  if (id < 1n || id > layout.maxId) throw outOfRange(value, layout, explicit);
  return id;
}

function invalidExplicitId(value: unknown): SheafError {
  const problem =
    typeof value !== 'number'
      ? 'is not a bigint, a safe integer or a string of decimal digits'
      : Number.isInteger(value)
        ? 'is not a safe integer: a number above 2^53 − 1 may already be rounded; pass a bigint or a string'
        : 'is not an integer';
  return new SheafError('INVALID_ID', `explicit id ${formatValue(value)} ${problem}`, {
    details: { value: detailValue(value), type: typeName(value) },
  });
}
