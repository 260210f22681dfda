/** Longest string echoed into a message: ids have at most 20 characters, anything longer is noise. */
const maxShownLength = 40;

/** Last unix millisecond a JavaScript `Date` can hold (ECMA-262 time value range). */
export const maxDateMs = 8_640_000_000_000_000;

/**
 * Renders a caller's value for an error message: strings quoted and truncated, so a mistyped
 * `'12a'` is told apart from `12`, and a megabyte of input does not become a megabyte of message.
 *
 * @example
 * formatValue('12a'); // '"12a"'
 */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length <= maxShownLength) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, maxShownLength))}… (${value.length} characters)`;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  return String(value);
}

/**
 * {@link formatValue} with a bigint shown as `5n`: for an argument that should have been a number or
 * text, where a bare `5` would hide what is wrong with it.
 *
 * @example
 * formatArgument(5n); // '5n'
 */
export function formatArgument(value: unknown): string {
  return typeof value === 'bigint' ? `${value}n` : formatValue(value);
}

/**
 * Renders a unix millisecond as ISO 8601, falling back to the number where `toISOString` would throw.
 *
 * @example
 * formatTime(0); // '1970-01-01T00:00:00.000Z'
 */
export function formatTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= maxDateMs ? new Date(ms).toISOString() : `${ms} ms`;
}

/**
 * Makes a value safe for `details`: `JSON.stringify` throws on bigints, and loggers stringify errors.
 *
 * @example
 * jsonSafe(5n); // '5'
 */
export function jsonSafe(value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * A caller's value of unknown type for `details`: primitives as {@link jsonSafe} leaves them, objects,
 * functions and symbols as {@link formatValue}'s short text (an object may be circular or huge).
 *
 * @example
 * detailValue({ a: 1 }); // 'an object'
 */
export function detailValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) return formatValue(value);
  if (typeof value === 'function' || typeof value === 'symbol') return formatValue(value);
  return jsonSafe(value);
}

/**
 * The kind of a caller's value for `details`, telling apart what `typeof` lumps together.
 *
 * @example
 * typeName(null); // 'null'
 */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
