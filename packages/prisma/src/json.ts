import { type Layout, layoutByName, type PresetName, parseId, SheafError } from '@sheaf/core';

/**
 * How bigints appear in JSON: `'string'` (default; any id) or `'number'` (ids of a layout that stays
 * below 2^53, `js53`; a larger bigint is refused, never rounded).
 *
 * @example
 * const mode: JsonIds = 'number';
 */
export type JsonIds = 'string' | 'number';

/**
 * A `JSON.stringify` replacer that writes bigints (Prisma's `BigInt` fields) as decimal strings, or
 * as numbers under `js53`. `JSON.stringify` throws on a bigint without one.
 *
 * @example
 * res.send(JSON.stringify(await prisma.order.findMany(), bigintReplacer()));
 */
export function bigintReplacer(ids: JsonIds = 'string'): (key: string, value: unknown) => unknown {
  return (_key, value) => {
    if (typeof value !== 'bigint') return value;
    if (ids === 'string') return value.toString();
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new SheafError(
        'ID_OUT_OF_RANGE',
        `bigint ${value} is above 2^53 − 1 and would be rounded as a JSON number`,
        {
          details: { value: value.toString(), max: Number.MAX_SAFE_INTEGER },
        },
      );
    }
    return Number(value);
  };
}

/**
 * `value` with every bigint replaced as {@link bigintReplacer} does: for frameworks that serialise
 * results themselves (`res.json(toJsonSafe(order))`).
 *
 * @example
 * const body = toJsonSafe(await prisma.order.findUnique({ where: { id } }));
 */
export function toJsonSafe<T>(value: T, ids: JsonIds = 'string'): unknown {
  return JSON.parse(JSON.stringify(value, bigintReplacer(ids)));
}

/**
 * A `JSON.parse` reviver that turns the named keys back into bigint ids, checked against the layout
 * (`INVALID_ID`, `ID_OUT_OF_RANGE`): what the client sent back becomes a Prisma `BigInt` again.
 *
 * @example
 * const order = JSON.parse(body, idReviver(['id', 'orderId']));
 * await prisma.order.update({ where: { id: order.id }, data: { note: order.note } });
 */
export function idReviver(
  keys: readonly string[],
  layout: Layout | PresetName = 'sheaf',
): (key: string, value: unknown) => unknown {
  const names = new Set(keys);
  const resolved = typeof layout === 'string' ? layoutByName(layout) : layout;
  return (key, value) =>
    names.has(key) && (typeof value === 'string' || typeof value === 'number') ? parseId(value, resolved) : value;
}
