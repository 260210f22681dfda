import type { SqlExecutor } from '@sheaf/core';

/** The unfinished migrations of the journal earlier versions kept in the application's database. */
export interface LegacyJournal {
  readonly unfinished: readonly number[];
}

// Only ids are read from it, and only for the warning: the table sits where an application account
// can write, so nothing in it is run or trusted (docs/migrating-existing-tables.md).
const unfinishedSql = `
  select cast(id as char) as id from sheaf_migrations where state in ('running', 'aborting') order by id`;

/** Reads `app.sheaf_migrations` (MySQL/MariaDB), or undefined when the database has none. */
export async function readLegacyJournal(executor: SqlExecutor): Promise<LegacyJournal | undefined> {
  const [table] = await executor.query<{ n: number | string }>(
    `select count(*) as n from information_schema.tables
     where table_schema = database() and table_name = 'sheaf_migrations'`,
  );
  if (Number(table?.n) === 0) return undefined;
  const rows = await executor.query<{ id: string }>(unfinishedSql);
  return { unfinished: rows.map((row) => Number(row.id)) };
}
