import { SheafError } from '@sheaf/core';

/**
 * A point between two statements of a migration, where a run can stop and a later one go on:
 * before or after step `step` (1-based, of `of`) runs, or before or after its inverse runs on abort.
 * `after-step` comes after the statement committed and before the journal records it.
 */
export interface StepBoundary {
  readonly when: 'before-step' | 'after-step' | 'before-undo' | 'after-undo';
  readonly step: number;
  readonly of: number;
  /** The journal record's id (MySQL/MariaDB); absent where the migration is one transaction. */
  readonly migration?: number;
}

/**
 * Throws MIGRATION_INTERRUPTED when `signal` was aborted; `where` says what was left and how to go
 * on ("after step 3 of 38 of migration #2: …").
 */
export function stopIfInterrupted(
  signal: AbortSignal | undefined,
  where: string,
  details: Record<string, unknown>,
): void {
  if (!signal?.aborted) return;
  throw new SheafError('MIGRATION_INTERRUPTED', `interrupted ${where}`, { details, cause: signal.reason });
}
