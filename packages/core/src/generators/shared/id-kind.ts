import { SheafError } from '../../errors.js';
import { detailValue, formatArgument } from '../../format.js';

/**
 * How a generator hands out ids: `'number'` (fast, for ids below 2^53, e.g. segments and the `js53`
 * layout) or `'bigint'` (any 64-bit id).
 *
 * @example
 * const kind: IdKind = 'bigint';
 */
export type IdKind = 'number' | 'bigint';

/**
 * The id type a generator of kind `K` returns.
 *
 * @example
 * const id: IdOf<'number'> = 42;
 */
export type IdOf<K extends IdKind> = K extends 'number' ? number : bigint;

/** An int8 as any driver returns it (string, bigint or number), as a bigint. */
export function int8(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if ((typeof value === 'string' && /^-?\d+$/.test(value)) || Number.isSafeInteger(value)) {
    return BigInt(value as string | number);
  }
  throw new SheafError('INVALID_ARGUMENT', `${what} came back from the database as ${String(value)}, not an integer`);
}

/** `id` as kind `kind`; refuses a number above 2^53 − 1 rather than round it. */
export function asKind<K extends IdKind>(id: bigint, kind: K, what: string): IdOf<K> {
  if (kind === 'bigint') return id as IdOf<K>;
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new SheafError(
      'ID_OUT_OF_RANGE',
      `${what} reached id ${id}, above 2^53 − 1 (${Number.MAX_SAFE_INTEGER}): use ids: 'bigint'`,
      { details: { id: id.toString(), max: Number.MAX_SAFE_INTEGER } },
    );
  }
  return Number(id) as IdOf<K>;
}

/** Validates the `ids` option of a generator; `fallback` when undefined (null is refused like any other value). */
export function idKind(value: unknown, fallback: IdKind): IdKind {
  if (value === undefined) return fallback;
  if (value === 'number' || value === 'bigint') return value;
  throw new SheafError('INVALID_ARGUMENT', `ids must be 'number' or 'bigint', not ${formatArgument(value)}`, {
    details: { option: 'ids', value: detailValue(value) },
  });
}
