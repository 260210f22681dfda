import { type DecodedId, decodeId, idCeiling, idFloor, type Layout, layoutByName, type PresetName } from '@sheaf/core';
import { type Column, type SQL, sql } from 'drizzle-orm';

const layoutOf = (layout: Layout | PresetName | undefined): Layout =>
  typeof layout === 'string' ? layoutByName(layout) : (layout ?? layoutByName('sheaf'));

/**
 * Decodes an id as any `sheafId()` mode returns it (bigint, string or number): creation time, shard
 * and sequence.
 *
 * @example
 * const [order] = await db.select().from(orders).limit(1);
 * const { timestamp, shardId } = decodeSheafId(order.id);
 */
export function decodeSheafId(id: bigint | string | number, layout?: Layout | PresetName): DecodedId {
  return decodeId(id, layoutOf(layout));
}

/**
 * Adds the decoded parts of `key` (default `id`) to each selected row, as `<key>Decoded`.
 *
 * @example
 * const rows = withDecodedIds(await db.select().from(orders));
 * rows[0].idDecoded.timestamp; // Date
 */
export function withDecodedIds<R extends Record<string, unknown>, K extends string = 'id'>(
  rows: readonly R[],
  key: K = 'id' as K,
  layout?: Layout | PresetName,
): Array<R & { [P in `${K}Decoded`]: DecodedId }> {
  const resolved = layoutOf(layout);
  return rows.map((row) => ({ ...row, [`${key}Decoded`]: decodeId(row[key] as bigint, resolved) })) as Array<
    R & { [P in `${K}Decoded`]: DecodedId }
  >;
}

/**
 * A `where` condition for rows created between two times, answered by the primary key alone
 * (`id between id_floor(from) and id_ceiling(to)`); the bounds are inlined integers, so MySQL
 * never compares the key with a string.
 *
 * @example
 * const today = await db.select().from(orders).where(createdBetween(orders.id, startOfDay, new Date()));
 */
export function createdBetween(
  column: Column,
  from: Date | number,
  to: Date | number,
  layout?: Layout | PresetName,
): SQL {
  const resolved = layoutOf(layout);
  return sql`${column} between ${sql.raw(idFloor(from, resolved).toString())} and ${sql.raw(idCeiling(to, resolved).toString())}`;
}
