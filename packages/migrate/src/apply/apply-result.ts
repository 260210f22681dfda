import type { TableFingerprint } from '../model.js';

/**
 * The fingerprints before and after: equal, or applyMigration would have thrown. Its own module
 * because both `applyMigration` and the journaled run behind it return one.
 */
export interface ApplyResult {
  readonly before: readonly TableFingerprint[];
  readonly after: readonly TableFingerprint[];
  /** MySQL/MariaDB: the journal record's id in `sheaf_<app>.sheaf_migrations`. */
  readonly migration?: number;
  /** MySQL/MariaDB: steps an earlier, interrupted run had finished (0 for a fresh start). */
  readonly resumedAt?: number;
}
