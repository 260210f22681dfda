import { type Database, executorOf } from '@sheaf/core';
import { fingerprinterOf } from './apply/fingerprinter.js';
import { inspectMysql } from './inspect/inspect-mysql.js';
import { inspectPostgres } from './inspect/inspect-postgres.js';
import type { Inspection, Migration, PlanOptions, QualifiedName, TableFingerprint, TableSelection } from './model.js';
import { renderMysql } from './plan/render-mysql.js';
import { renderPostgres } from './plan/render-postgres.js';

const dialects = {
  postgres: { inspect: inspectPostgres, render: renderPostgres },
  mysql: { inspect: inspectMysql, render: renderMysql },
} as const;

/**
 * Reads the live schema: each selected table's integer primary key, its sequence / identity /
 * AUTO_INCREMENT, every column referencing it and the objects around those columns. Refuses with
 * NOT_INSTALLED, UNKNOWN_TABLE, UNSUPPORTED_KEY or KEYS_ABOVE_FLOOR before anything is changed.
 *
 * @example
 * const inspection = await inspect(pool, { tables: ['orders', 'order_items'] });
 */
export function inspect(db: Database, selection: TableSelection): Promise<Inspection> {
  const executor = executorOf(db, 'inspect');
  return dialects[executor.dialect.name].inspect(executor, selection);
}

/**
 * Turns an inspection into the statements that move its tables onto sheaf ids, in order, with a
 * description of each; `transactional` says whether they can run in one transaction.
 * `{ autoIncrement: false }` (MySQL/MariaDB) ends the keys without AUTO_INCREMENT ({@link PlanOptions}).
 *
 * @example
 * const migration = plan(await inspect(pool, { all: true }));
 * const forDrizzle = plan(await inspect(pool, { tables: ['orders'] }), { autoIncrement: false });
 */
export function plan(inspection: Inspection, options: PlanOptions = {}): Migration {
  return dialects[inspection.dialect].render(inspection, options);
}

/**
 * Row count and order-independent checksum of each table, equal before and after a migration.
 *
 * @example
 * const [orders] = await fingerprint(pool, [{ schema: 'public', name: 'orders' }]);
 */
export function fingerprint(db: Database, tables: readonly QualifiedName[]): Promise<TableFingerprint[]> {
  const executor = executorOf(db, 'fingerprint');
  return fingerprinterOf(executor)(executor, tables);
}
