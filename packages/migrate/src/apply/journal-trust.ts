import { SheafError } from '@sheaf/core';
import type { MigrationRecord } from './journal-store.js';

/**
 * JOURNAL_UNTRUSTED for a record whose HMAC does not match: it was written or changed outside sheaf,
 * so none of its statements is run, and none is suggested.
 *
 * @example
 * if (!record.trusted) throw journalUntrusted(record);
 */
export function journalUntrusted(record: MigrationRecord): SheafError {
  return new SheafError(
    'JOURNAL_UNTRUSTED',
    `migration #${record.id} in ${record.journal} does not match its HMAC: it was written or changed outside ` +
      'sheaf, so nothing from it was run. Check the tables it may have touched by hand, then remove it: ' +
      `delete from ${record.journal} where id = ${record.id}`,
    { details: { migration: record.id, journal: record.journal, state: record.state } },
  );
}

/** Throws JOURNAL_UNTRUSTED unless the record's HMAC matched. */
export function requireTrusted(record: MigrationRecord): void {
  if (!record.trusted) throw journalUntrusted(record);
}
