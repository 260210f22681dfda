import { mysqlDialect, type SqlExecutor } from '@sheaf/core';
import type { QualifiedName, TableFingerprint } from '../model.js';

const q = mysqlDialect.quoteIdent;

// Each row encoded without ambiguity — QUOTE() escapes the separator's quotes and prints NULL as the
// bare word — hashed to 64 bits (16 hex digits of MD5) and summed as a decimal modulo 2^64:
// independent of row order, and unchanged by int → bigint or unsigned → signed, which quote alike.
// Binary casts keep columns of different character sets from clashing in CONCAT_WS.
function checksumSql(table: QualifiedName, columns: readonly string[]): string {
  const row = columns.map((column) => `cast(quote(${q(column)}) as binary)`).join(', ');
  return `select count(*) as row_count,
      cast(coalesce(sum(cast(conv(left(md5(concat_ws(',', ${row})), 16), 16, 10) as decimal(20, 0))), 0)
        % 18446744073709551616 as char) as checksum
    from ${q(table.schema)}.${q(table.name)}`;
}

/**
 * Row count and order-independent checksum of each table, over all its columns in table order, to
 * compare before and after a migration.
 *
 * @example
 * const [orders] = await fingerprintMysql(executor, [{ schema: 'app', name: 'orders' }]);
 */
export async function fingerprintMysql(
  executor: SqlExecutor,
  tables: readonly QualifiedName[],
): Promise<TableFingerprint[]> {
  const fingerprints: TableFingerprint[] = [];
  for (const table of tables) {
    const columns = await executor.query<{ name: string }>(
      `select column_name as name from information_schema.columns
       where table_schema = ? and table_name = ? order by ordinal_position`,
      [table.schema, table.name],
    );
    const sql = checksumSql(
      table,
      columns.map((column) => column.name),
    );
    const [row] = await executor.query<{ row_count: string; checksum: string }>(sql);
    fingerprints.push({ table, rows: BigInt(row?.row_count ?? 0), checksum: row?.checksum ?? '0' });
  }
  return fingerprints;
}
