import type { SqlExecutor } from '@sheaf/core';
import { mysqlSheafTriggers } from '@sheaf/migrate';

/** A table whose key is the shape sheaf recommends on MySQL/MariaDB: a single-column BIGINT AUTO_INCREMENT primary key. */
export interface AutoIncrementKey {
  readonly table: string;
  readonly column: string;
  /** The table's AUTO_INCREMENT counter: the value the next insert without an id gets. */
  readonly nextValue: bigint | null;
}

/** The tables with a sheaf trigger, and the BIGINT AUTO_INCREMENT keys of the tables without one. */
export interface TriggerKeys {
  readonly withTrigger: readonly string[];
  readonly withoutTrigger: readonly AutoIncrementKey[];
}

// sheaf's own tables (sheaf_chunks counts ids with AUTO_INCREMENT) are not the application's keys.
const autoIncrementKeysSql = `
  select c.table_name as table_name, c.column_name as column_name, cast(t.auto_increment as char) as next_value
  from information_schema.columns c
  join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
  where c.table_schema = database() and t.table_type = 'BASE TABLE' and c.table_name not like 'sheaf\\_%'
    and c.column_key = 'PRI' and c.data_type = 'bigint' and c.extra like '%auto_increment%'
    and (select count(*) from information_schema.key_column_usage k
      where k.table_schema = database() and k.table_name = c.table_name and k.constraint_name = 'PRIMARY') = 1
  order by c.table_name`;

/** Reads which tables have a sheaf trigger (the rule `sheaf migrate` skips them by) and which keys lack one. */
export async function readTriggerKeys(executor: SqlExecutor): Promise<TriggerKeys> {
  const withTrigger = [...(await mysqlSheafTriggers(executor)).keys()].sort();
  const keys = await executor.query<{ table_name: string; column_name: string; next_value: string | null }>(
    autoIncrementKeysSql,
  );
  const withoutTrigger = keys
    .filter((row) => !withTrigger.includes(row.table_name))
    .map((row) => ({
      table: row.table_name,
      column: row.column_name,
      nextValue: row.next_value === null ? null : BigInt(row.next_value),
    }));
  return { withTrigger, withoutTrigger };
}
