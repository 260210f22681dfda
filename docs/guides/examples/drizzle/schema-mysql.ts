import { sheafId, sheafRef } from '@sheaf/drizzle/mysql-core';
import { relations } from 'drizzle-orm';
import { int, mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { nextId } from './ids.js';

/** Orders: the key is filled by $defaultFn from an app-side generator, so $returningId() knows it. */
export const orders = mysqlTable('orders', {
  id: sheafId({ ids: nextId }).primaryKey(),
  customer: varchar('customer', { length: 100 }).notNull(),
});

/** Items of an order; string ids here, to show the mode. */
export const orderItems = mysqlTable('order_items', {
  id: sheafId({ ids: nextId, mode: 'string' }).primaryKey(),
  orderId: sheafRef('order_id')
    .notNull()
    .references(() => orders.id),
  sku: varchar('sku', { length: 40 }).notNull(),
  quantity: int('quantity').notNull(),
});

export const ordersRelations = relations(orders, ({ many }) => ({ items: many(orderItems) }));
export const orderItemsRelations = relations(orderItems, ({ one }) => ({
  order: one(orders, { fields: [orderItems.orderId], references: [orders.id] }),
}));
