import type { SqlExecutor } from '@sheaf/core';
import type { SchemaFact } from '../model.js';

/**
 * Whether every fact holds in the live catalog (MySQL/MariaDB information_schema). A step's
 * statement is atomic, so its facts hold all together or none: checking them all guards against a
 * schema changed by hand between two runs as well.
 *
 * @example
 * const done = await factsHold(session, step.effect ?? []);
 */
export async function factsHold(session: SqlExecutor, facts: readonly SchemaFact[]): Promise<boolean> {
  for (const fact of facts) if (!(await holds(session, fact))) return false;
  return true;
}

async function holds(session: SqlExecutor, fact: SchemaFact): Promise<boolean> {
  if (fact.kind === 'foreign keys') {
    const found = await names(
      session,
      `select constraint_name as name from information_schema.table_constraints
       where constraint_schema = ? and table_name = ? and constraint_type = 'FOREIGN KEY'`,
      [fact.table.schema, fact.table.name],
    );
    return fact.names.every((name) => found.has(name) === fact.present);
  }
  if (fact.kind === 'bigint columns') {
    const found = await names(
      session,
      `select column_name as name from information_schema.columns
       where table_schema = ? and table_name = ? and data_type = 'bigint' and column_type not like '%unsigned%'`,
      [fact.table.schema, fact.table.name],
    );
    return fact.columns.every((column) => found.has(column));
  }
  if (fact.kind === 'no auto_increment') {
    const found = await names(
      session,
      `select column_name as name from information_schema.columns
       where table_schema = ? and table_name = ? and column_name = ? and extra not like '%auto_increment%'`,
      [fact.table.schema, fact.table.name, fact.column],
    );
    return found.has(fact.column);
  }
  const found = await names(
    session,
    'select trigger_name as name from information_schema.triggers where trigger_schema = ? and trigger_name = ?',
    [fact.name.schema, fact.name.name],
  );
  return found.has(fact.name.name);
}

async function names(session: SqlExecutor, sql: string, params: readonly unknown[]): Promise<Set<string>> {
  const rows = await session.query<{ name: string }>(sql, params);
  return new Set(rows.map((row) => row.name));
}
