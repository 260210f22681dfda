import { isSheafError } from './errors.js';

/**
 * A MySQL-family statement rolled back as a deadlock (error 1213, ER_LOCK_DEADLOCK): on a Galera
 * node also a transaction that lost certification to another node's. It changed nothing, so a
 * statement that commits on its own may be sent again.
 */
export function certificationConflict(error: unknown): boolean {
  const cause = isSheafError(error) ? error.cause : error;
  const { errno, code } = (cause ?? {}) as { errno?: unknown; code?: unknown };
  return errno === 1213 || code === 1213 || code === 'ER_LOCK_DEADLOCK';
}
