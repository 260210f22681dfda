import { inState, type Row, type SqlExecutor } from '@sheaf/core';

/** `sql` with `{state}` naming the database that holds sheaf's tables, as the CLI reads them (inState). */
export async function stateSql(executor: SqlExecutor, sql: string): Promise<string> {
  return (await inState(executor, { sql })).sql;
}

/** Runs `sql`, whose `{state}.sheaf_…` names sheaf's tables on MySQL/MariaDB. */
export async function queryState<T extends Row = Row>(
  executor: SqlExecutor,
  sql: string,
  params?: readonly unknown[],
): Promise<T[]> {
  return executor.query<T>(await stateSql(executor, sql), params);
}
