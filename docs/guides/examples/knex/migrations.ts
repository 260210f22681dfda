// The migrations of docs/guides/knex.md; in an app these are files in migrations/.
import { installSheaf, sheafId, uninstallSheaf } from '@sheaf/knex';
import type { Knex } from 'knex';

/** 0001: sheaf's functions and tables, before any table uses them. */
export const installMigration: Knex.Migration = {
  up: (knex) => installSheaf(knex, { shard: 4 }).then(() => undefined),
  down: (knex) => uninstallSheaf(knex),
};

/** 0002: tables keyed by sheaf ids (default on PostgreSQL, trigger on MySQL). */
export const ordersMigration: Knex.Migration = {
  async up(knex) {
    await knex.schema.createTable('orders', (table) => {
      sheafId(table, 'id');
      table.string('customer', 100).notNullable();
    });
    await knex.schema.createTable('order_items', (table) => {
      sheafId(table, 'id');
      table.bigInteger('order_id').notNullable().references('orders.id');
      table.string('sku', 40).notNullable();
      table.integer('quantity').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('order_items');
    await knex.schema.dropTable('orders');
  },
};

const migrations: Record<string, Knex.Migration> = {
  '0001_sheaf': installMigration,
  '0002_orders': ordersMigration,
};

/** Lets `knex.migrate` run the migrations above (files in a folder work the same way). */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
