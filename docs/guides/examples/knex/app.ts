// The example of docs/guides/knex.md, run by test/integration/knex.test.ts on each database.
import { decodeId, parseId } from '@sheaf/core';
import { insertWithIds } from '@sheaf/knex';
import type { Knex } from 'knex';
import { migrationSource } from './migrations.js';

/** Migrates, places an order with two items, reads it back with the ids' creation time. */
export async function main(knex: Knex) {
  await knex.migrate.latest({ migrationSource });
  const orderId = await knex.transaction(async (trx) => {
    const [id] = await insertWithIds(trx, 'orders', { customer: 'ada' });
    await insertWithIds(trx, 'order_items', [
      { order_id: id, sku: 'tea', quantity: 2 },
      { order_id: id, sku: 'scone', quantity: 1 },
    ]);
    return id!;
  });
  // Selected int8 columns arrive as strings (node-postgres, mysql2 with bigNumberStrings): parse them.
  const items = await knex('order_items').where({ order_id: orderId.toString() }).orderBy('id');
  return {
    orderId,
    createdAt: decodeId(orderId).timestamp,
    shardId: decodeId(orderId).shardId,
    items: items.map((item: { id: unknown; order_id: unknown; sku: string }) => ({
      id: parseId(item.id as string),
      orderId: parseId(item.order_id as string),
      sku: item.sku,
    })),
  };
}
