// The example of docs/guides/knex.md, run by test/integration/knex.test.ts on each database and, with
// several processes writing one table at once, by test/guides/knex-setup.test.ts.
import { decodeId, parseId, SnowflakeGenerator } from '@sheaf/core';
import { extendKnex, type IdSource, insertWithIds, knexExecutor } from '@sheaf/knex';
import type { Knex } from 'knex';
import { migrationSource } from './migrations.js';

/**
 * Migrates, places an order with two items, reads it back with the ids' creation time; adds a guest
 * order through the builder method that `extendKnex` adds.
 */
export async function main(knex: Knex) {
  await knex.migrate.latest({ migrationSource });
  const orderId = await placeOrder(knex, 'ada');
  // Opt-in, once at startup: the instance you query with (or the knex module) gets insertWithIds on
  // every query builder; calling it again changes nothing.
  extendKnex(knex);
  const [guestOrderId] = await knex('orders').insertWithIds({ customer: 'guest' });
  // Selected int8 columns arrive as strings (node-postgres, mysql2 with bigNumberStrings): parse them.
  const items = await knex('order_items').where({ order_id: orderId.toString() }).orderBy('id');
  return {
    orderId,
    guestOrderId: guestOrderId!,
    createdAt: decodeId(orderId).timestamp,
    shardId: decodeId(orderId).shardId,
    items: items.map((item: { id: unknown; order_id: unknown; sku: string }) => ({
      id: parseId(item.id as string),
      orderId: parseId(item.order_id as string),
      sku: item.sku,
    })),
  };
}

/**
 * An order and its items in one transaction, returning the order's id. Ids come from the database
 * (the column default, or `call sheaf_next_ids(n)` on MySQL), or from `ids` when given.
 */
export function placeOrder(knex: Knex, customer: string, ids?: IdSource): Promise<bigint> {
  return knex.transaction(async (trx) => {
    const [id] = await insertWithIds(trx, 'orders', { customer }, { ids });
    await insertWithIds(
      trx,
      'order_items',
      [
        { order_id: id, sku: 'tea', quantity: 2 },
        { order_id: id, sku: 'scone', quantity: 1 },
      ],
      { ids },
    );
    return id!;
  });
}

/**
 * An app-side id source for `placeOrder` (MySQL 8's path): a SnowflakeGenerator on a worker id of
 * this process, never the database's shard (one id space). `close()` it at shutdown.
 */
export function startIds(knex: Knex) {
  return SnowflakeGenerator.start(knexExecutor(knex));
}
