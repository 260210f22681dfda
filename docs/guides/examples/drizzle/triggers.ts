// The custom migration of docs/guides/drizzle.md for MySQL/MariaDB (`drizzle-kit generate --custom`):
// the sheaf trigger keys the rows that other clients insert without an id; drizzle's $defaultFn
// keys the rest, and the trigger leaves a given id alone.
import { sheafTriggerSql } from '@sheaf/core';

/** The statements of the custom migration, one per `--> statement-breakpoint`. */
export const triggerStatements = [sheafTriggerSql('orders', 'id').create, sheafTriggerSql('order_items', 'id').create];
