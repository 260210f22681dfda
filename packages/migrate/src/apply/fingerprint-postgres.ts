import type { SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableFingerprint } from '../model.js';
import { qualify } from '../names.js';

// Each row's text form hashed to 64 bits and summed modulo 2^64: independent of row order, and
// unchanged by int → bigint, which print alike. row(alias.*) cannot be captured by a column name.
const checksum = (table: string) => `
  select count(*)::text as rows,
    (((coalesce(sum(('x' || left(md5(row(sheaf_row.*)::text), 16))::bit(64)::bigint::numeric), 0)
      % 18446744073709551616) + 18446744073709551616) % 18446744073709551616)::text as checksum
  from ${table} as sheaf_row`;

/**
 * Row count and order-independent checksum of each table, to compare before and after a migration.
 *
 * @example
 * const [orders] = await fingerprintPostgres(executor, [{ schema: 'public', name: 'orders' }]);
 */
export async function fingerprintPostgres(
  executor: SqlExecutor,
  tables: readonly QualifiedName[],
): Promise<TableFingerprint[]> {
  const fingerprints: TableFingerprint[] = [];
  for (const table of tables) {
    const [row] = await executor.query<{ rows: string; checksum: string }>(checksum(qualify(executor.dialect, table)));
    fingerprints.push({ table, rows: BigInt(row?.rows ?? 0), checksum: row?.checksum ?? '0' });
  }
  return fingerprints;
}
