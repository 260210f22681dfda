import { sheafId } from '@sheaf/drizzle/pg-core';
import { relations } from 'drizzle-orm';
import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** Orders: the key is `bigint default sheaf.next_id()`, assigned by PostgreSQL. */
export const orders = pgTable('orders', {
  id: sheafId().primaryKey(),
  customer: text('customer').notNull(),
});

/** Items of an order; string ids here, to show the mode (JSON-safe without a replacer). */
export const orderItems = pgTable('order_items', {
  id: sheafId({ mode: 'string' }).primaryKey(),
  orderId: bigint('order_id', { mode: 'bigint' })
    .notNull()
    .references(() => orders.id),
  sku: text('sku').notNull(),
  quantity: integer('quantity').notNull(),
});

export const ordersRelations = relations(orders, ({ many }) => ({ items: many(orderItems) }));
export const orderItemsRelations = relations(orderItems, ({ one }) => ({
  order: one(orders, { fields: [orderItems.orderId], references: [orders.id] }),
}));
