import { mysqlDialect, type SqlExecutor } from '@sheaf/core';
import type { ColumnToWiden, Dependent, QualifiedName } from '../model.js';
import { nameKey } from '../names.js';

const q = mysqlDialect.quoteIdent;
const qualified = (name: QualifiedName) => `${q(name.schema)}.${q(name.name)}`;

/**
 * Views of the current database that read the changing tables, directly or through other views,
 * each after the views it reads. MySQL and MariaDB store a view as its query text, resolved again on
 * every use: a view reports bigint as soon as its table does, so none needs re-creating (`recreate`
 * false, checked by the tests). The stored text names each table `db`.`table`, which is how a view
 * is matched here (MariaDB 10.11 has no VIEW_TABLE_USAGE).
 */
export async function mysqlDependentViews(
  executor: SqlExecutor,
  columns: readonly ColumnToWiden[],
): Promise<Dependent[]> {
  const views = await executor.query<{ schema_name: string; name: string; query: string }>(
    `select table_schema as schema_name, table_name as name, view_definition as query
     from information_schema.views where table_schema = database() order by table_name`,
  );
  const read = new Map(columns.map((column) => [nameKey(column.table), column.table]));
  const dependents: Dependent[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const view of views) {
      const name = { schema: view.schema_name, name: view.name };
      if (read.has(nameKey(name))) continue;
      const base = [...read.values()].find((table) => view.query.includes(qualified(table)));
      if (!base) continue;
      read.set(nameKey(name), name);
      dependents.push({
        kind: 'view',
        name,
        table: base,
        definition: `create or replace view ${q(view.name)} as ${view.query}`,
        recreate: false,
      });
      grew = true;
    }
  }
  return dependents;
}

interface TriggerRow {
  schema_name: string;
  name: string;
  table_name: string;
  timing: string;
  event: string;
  body: string;
}

/**
 * Triggers on the changing tables, in firing order. ALTER TABLE keeps them, and their bodies are
 * parsed again on use, so none is re-created; they are listed because a body that copies a key into
 * a narrower column (an audit table's `int`) starts failing once keys are sheaf ids.
 */
export async function mysqlDependentTriggers(
  executor: SqlExecutor,
  columns: readonly ColumnToWiden[],
): Promise<Dependent[]> {
  const rows = await executor.query<TriggerRow>(
    `select trigger_schema as schema_name, trigger_name as name, event_object_table as table_name,
       action_timing as timing, event_manipulation as event, action_statement as body
     from information_schema.triggers where trigger_schema = database()
     order by event_object_table, action_timing, event_manipulation, action_order`,
  );
  const tables = new Set(columns.map((column) => nameKey(column.table)));
  return rows
    .filter((row) => tables.has(nameKey({ schema: row.schema_name, name: row.table_name })))
    .map((row) => ({
      kind: 'trigger' as const,
      name: { schema: row.schema_name, name: row.name },
      table: { schema: row.schema_name, name: row.table_name },
      definition: `${triggerHead(row.name, `${row.timing} ${row.event}`, row.table_name)} ${row.body}`,
      recreate: false,
    }));
}

const triggerHead = (name: string, when: string, table: string) =>
  `create trigger ${q(name)} ${when.toLowerCase()} on ${q(table)} for each row`;

/** Whether a trigger dependent fires before an insert: sheaf's trigger must precede it to hand it the id. */
export function firesBeforeInsert(dependent: Dependent): boolean {
  const head = triggerHead(dependent.name.name, 'before insert', dependent.table.name);
  return dependent.kind === 'trigger' && dependent.definition.startsWith(head);
}

interface IndexRow {
  schema_name: string;
  table_name: string;
  index_name: string;
  non_unique: string | number;
  column_name: string;
  sub_part: string | null;
}

/** Indexes holding a changing column: the copying ALTER rebuilds them with the table, so none is re-created. */
export async function mysqlDependentIndexes(
  executor: SqlExecutor,
  columns: readonly ColumnToWiden[],
): Promise<Dependent[]> {
  const rows = await executor.query<IndexRow>(
    `select table_schema as schema_name, table_name, index_name, non_unique, column_name, sub_part
     from information_schema.statistics where table_schema = database()
     order by table_name, index_name, seq_in_index`,
  );
  const changing = new Set(
    columns.map((column) => JSON.stringify([column.table.schema, column.table.name, column.column])),
  );
  const indexes = new Map<string, IndexRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.schema_name, row.table_name, row.index_name]);
    indexes.set(key, [...(indexes.get(key) ?? []), row]);
  }
  return [...indexes.values()]
    .filter((parts) => parts.some((p) => changing.has(JSON.stringify([p.schema_name, p.table_name, p.column_name]))))
    .map(toIndex);
}

function toIndex(parts: readonly IndexRow[]): Dependent {
  const first = parts[0] as IndexRow;
  const table = { schema: first.schema_name, name: first.table_name };
  const list = parts.map((p) => `${q(p.column_name)}${p.sub_part === null ? '' : `(${p.sub_part})`}`).join(', ');
  const what =
    first.index_name === 'PRIMARY'
      ? 'primary key'
      : `${Number(first.non_unique) === 0 ? 'unique ' : ''}index ${q(first.index_name)}`;
  const definition = `alter table ${q(first.table_name)} add ${what} (${list})`;
  return { kind: 'index', name: { schema: table.schema, name: first.index_name }, table, definition, recreate: false };
}
