import { type Check, check } from './check.js';
import type { LegacyJournal } from './legacy-journal.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * MySQL/MariaDB: earlier versions journaled `sheaf migrate --apply` in the application's database,
 * where an application account can write. Sheaf no longer reads that table, so its unfinished
 * migrations stay as they are: a warning naming them, to be finished by hand.
 */
export function legacyJournalCheck(journal: LegacyJournal | Unreadable): Check {
  const name = 'legacy journal';
  if (isUnreadable(journal)) return check(name, 'warn', `cannot read sheaf_migrations: ${journal.unreadable}`);
  if (journal.unfinished.length === 0) {
    return check(name, 'ok', 'sheaf_migrations of an earlier version has no unfinished migration: you may drop it');
  }
  const ids = journal.unfinished.map((id) => `#${id}`).join(', ');
  return check(
    name,
    'warn',
    `sheaf_migrations (the journal of an earlier version, in this database) has unfinished migrations ${ids}: ` +
      'sheaf no longer runs them (the journal is now in sheaf_<database>); check and finish those tables by hand, ' +
      'then drop table sheaf_migrations',
    { details: { unfinished: journal.unfinished } },
  );
}
