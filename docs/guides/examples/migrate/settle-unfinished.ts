import type { Database } from '@sheaf/core';
import { abortMigration, migrationStatus, resumeMigration } from '@sheaf/migrate';

/**
 * Before a deploy plans anything on MySQL/MariaDB: finishes (`resume`) or undoes (`abort`) the
 * migration an earlier deploy left unfinished, so that the next plan starts from a whole schema.
 */
export async function settleUnfinished(db: Database, how: 'resume' | 'abort', log: (text: string) => void) {
  const { unfinished, latest } = await migrationStatus(db);
  if (!unfinished || !latest) return 'nothing unfinished';
  log(`migration #${latest.id}: ${latest.stepsDone} of ${latest.steps.length} steps done (${latest.state})\n`);
  if (how === 'abort') {
    await abortMigration(db, { progress: log });
    return 'aborted';
  }
  await resumeMigration(db, { progress: log });
  return 'resumed';
}
