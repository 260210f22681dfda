import { type DialectName, SheafError } from '@sheaf/core';
import type { TableFingerprint } from '../model.js';
import { display, nameKey } from '../names.js';

/**
 * Throws VERIFY_FAILED naming each table whose row count or checksum differs from before (or that
 * is gone); `outcome` says what became of the statements ("rolled back").
 *
 * @example
 * verify(before, after, 'rolled back', 'postgres');
 */
export function verify(
  before: readonly TableFingerprint[],
  after: readonly TableFingerprint[],
  outcome: string,
  dialect: DialectName,
): void {
  const afterByTable = new Map(after.map((fingerprint) => [nameKey(fingerprint.table), fingerprint]));
  const differences = before.flatMap((old) => {
    const now = afterByTable.get(nameKey(old.table));
    if (now && now.rows === old.rows && now.checksum === old.checksum) return [];
    const then = `had ${old.rows} rows with checksum ${old.checksum}`;
    return [
      `${display(old.table, dialect)} ${then}, now ${now ? `${now.rows} rows with checksum ${now.checksum}` : 'is gone'}`,
    ];
  });
  if (differences.length === 0) return;
  throw new SheafError('VERIFY_FAILED', `verification failed, ${outcome}: ${differences.join('; ')}`, {
    details: { tables: differences },
  });
}
