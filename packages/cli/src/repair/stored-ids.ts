import { mysqlDialect, type SqlExecutor } from '@sheaf/core';
import { mysqlSheafTriggers } from '@sheaf/migrate';

// The single-column BIGINT primary key of a table, which is the column its sheaf trigger fills.
const bigintKeySql = `
  select c.column_name as column_name from information_schema.columns c
  where c.table_schema = database() and c.table_name = ? and c.column_key = 'PRI' and c.data_type = 'bigint'
    and (select count(*) from information_schema.key_column_usage k
      where k.table_schema = database() and k.table_name = c.table_name and k.constraint_name = 'PRIMARY') = 1`;

/**
 * The largest id stored in the tables a sheaf trigger fills (MySQL/MariaDB), or null: the ids known
 * to be issued, which a counter set back must stay above. Ids taken by `sheaf_next_id()` and stored
 * anywhere else are not seen.
 */
export async function largestStoredId(executor: SqlExecutor): Promise<string | null> {
  let largest: bigint | null = null;
  const q = mysqlDialect.quoteIdent;
  for (const table of (await mysqlSheafTriggers(executor)).keys()) {
    const [key] = await executor.query<{ column_name: string }>(bigintKeySql, [table]);
    if (!key) continue;
    const [row] = await executor.query<{ id: unknown }>(
      `select cast(max(${q(key.column_name)}) as char) as id from ${q(table)}`,
    );
    const id = row?.id === null || row?.id === undefined ? null : BigInt(String(row.id));
    if (id !== null && (largest === null || id > largest)) largest = id;
  }
  return largest === null ? null : largest.toString();
}
