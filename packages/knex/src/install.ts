import { type InstallOptions, type InstallResult, install, type UninstallOptions, uninstall } from '@sheaf/core';
import type { Knex } from 'knex';
import { knexExecutor } from './executor.js';

/**
 * Installs or upgrades sheaf's SQL through knex, for the first migration. Inside a migration's
 * transaction (PostgreSQL) the install is a savepoint of it; MySQL commits DDL implicitly, so give
 * that migration `config = { transaction: false }`.
 *
 * @example
 * // migrations/20260101000000_sheaf.ts
 * export const up = (knex: Knex) => installSheaf(knex, { shard: 1 });
 * export const down = (knex: Knex) => uninstallSheaf(knex);
 */
export function installSheaf(knex: Knex, options: InstallOptions = {}): Promise<InstallResult> {
  return install(knexExecutor(knex), options);
}

/**
 * Removes sheaf's SQL through knex, for the `down` of the install migration. Refuses (`IN_USE`)
 * while tables still use it, so later migrations must be rolled back first, or pass `force`.
 *
 * @example
 * export const down = (knex: Knex) => uninstallSheaf(knex);
 */
export function uninstallSheaf(knex: Knex, options: UninstallOptions = {}): Promise<void> {
  return uninstall(knexExecutor(knex), options);
}
