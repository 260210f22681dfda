import type { SqlExecutor } from '@sheaf/core';
import type { Inspection, MigrationWarning, QualifiedName, TableToMigrate } from '../model.js';
import { display, displayPart, nameKey } from '../names.js';
import { insertsInto, keyNames, word } from './reference-names.js';
import { type BodyInteger, type IntegerSlot, type RoutineFacts, routineWarning } from './routine-warnings.js';
import { unlinkedColumns } from './unlinked-columns.js';

const integerTypes = "('tinyint', 'smallint', 'mediumint', 'int')";

// sheaf's own routines (sheaf_next_id, sheaf__fail, …) call LAST_INSERT_ID() on purpose.
const routinesSql = `
  select routine_schema as schema_name, routine_name as name, specific_name, routine_type as kind,
    coalesce(routine_definition, '') as body
  from information_schema.routines
  where routine_schema = database() and routine_name not like 'sheaf\\_%'
  order by routine_name`;

// Ordinal 0 is a function's return type.
const parametersSql = `
  select specific_name, ordinal_position as position, parameter_mode as mode,
    coalesce(parameter_name, '') as name, data_type, dtd_identifier as type
  from information_schema.parameters
  where specific_schema = database() and specific_name not like 'sheaf\\_%'
  order by specific_name, ordinal_position`;

const triggersSql = `
  select trigger_schema as schema_name, trigger_name as name, event_object_table as table_name,
    action_statement as body
  from information_schema.triggers
  where trigger_schema = database()
  order by event_object_table, trigger_name`;

// Integer columns in no foreign key, named like an id: candidates for references nobody declared.
const unlinkedSql = `
  select c.table_schema as schema_name, c.table_name, c.column_name, c.column_type as type
  from information_schema.columns c
  join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
  where c.table_schema = database() and t.table_type = 'BASE TABLE' and c.table_name not like 'sheaf\\_%'
    and c.data_type in ${integerTypes} and c.column_name like '%id'
    and not exists (select 1 from information_schema.key_column_usage k
      where k.table_schema = c.table_schema and k.table_name = c.table_name and k.column_name = c.column_name
        and k.referenced_table_name is not null)
  order by c.table_name, c.ordinal_position`;

// MariaDB keeps a default nextval(seq) as text: which columns still draw from a sequence.
const sequenceUsersSql = `
  select table_schema as schema_name, table_name, column_name, column_default as expression
  from information_schema.columns
  where table_schema = database() and column_default like '%nextval(%'`;

const bodyIntegers: readonly BodyInteger[] = [
  {
    pattern: /\bdeclare\b[^;]*?(?<![\w$])(tinyint|smallint|mediumint|int|integer)(?![\w$])/i,
    what: 'integer variables declared in its body',
  },
  {
    // Sakila's rewards_report: `create temporary table tmpCustomer (customer_id smallint unsigned …)`.
    pattern:
      /\bcreate\s+(?:temporary\s+)?table\b[^;]*?[(,]\s*`?(?:\w*_)?id`?\s+(?:tinyint|smallint|mediumint|int|integer)(?![\w$])/i,
    what: 'integer id columns of tables its body creates',
  },
];
// BOOLEAN is tinyint(1): a flag (Sakila's inventory_in_stock returns one), never a key.
const isBoolean = (type: string) => /^tinyint\(1\)/i.test(type);
const callsLastInsertId = /(?<![\w$])last_insert_id\s*\(\s*\)/i;

interface RoutineRow {
  schema_name: string;
  name: string;
  specific_name: string;
  kind: string;
  body: string;
}

interface ParameterRow {
  specific_name: string;
  position: number;
  mode: string | null;
  name: string;
  data_type: string;
  type: string;
}

interface TriggerRow {
  schema_name: string;
  name: string;
  table_name: string;
  body: string;
}

/**
 * What a MySQL/MariaDB migration leaves as it is and may break (see {@link MigrationWarning}):
 * LAST_INSERT_ID() for the migrated tables and the routines and triggers that call it after
 * inserting into one, routines and triggers with integer slots for migrated keys, integer columns
 * named like references without a foreign key, and MariaDB sequences that no longer feed a key.
 */
export async function mysqlWarnings(
  session: SqlExecutor,
  inspection: Pick<Inspection, 'tables' | 'columns'>,
): Promise<MigrationWarning[]> {
  if (inspection.tables.length === 0 && inspection.columns.length === 0) return [];
  const names = keyNames(inspection.tables, inspection.columns);
  const routines = await readRoutines(session);
  const migrated = inspection.tables.map((t) => t.table);
  return [
    ...lastInsertId(inspection.tables),
    ...routines.flatMap((routine) => lastInsertIdCall(routine, migrated) ?? []),
    ...routines.flatMap((routine) => routineWarning(routine, names, bodyIntegers, 'mysql') ?? []),
    ...(await unlinkedColumns(session, unlinkedSql, inspection, names, 'mysql')),
    ...(await keptSequences(session, inspection.tables)),
  ];
}

/** The current database's routines and triggers, sheaf's own left out. */
async function readRoutines(session: SqlExecutor): Promise<RoutineFacts[]> {
  const parameters = new Map<string, ParameterRow[]>();
  for (const row of await session.query<ParameterRow>(parametersSql)) {
    parameters.set(row.specific_name, [...(parameters.get(row.specific_name) ?? []), row]);
  }
  const routines = (await session.query<RoutineRow>(routinesSql)).map((row): RoutineFacts => {
    const all = parameters.get(row.specific_name) ?? [];
    const type = row.kind.toUpperCase() === 'PROCEDURE' ? 'procedure' : 'function';
    const name = { schema: row.schema_name, name: row.name };
    const args = all.filter((p) => Number(p.position) > 0).map((p) => `${p.name} ${p.type}`);
    const integers = all.flatMap((p): IntegerSlot[] =>
      integerTypes.includes(`'${p.data_type.toLowerCase()}'`) && !isBoolean(p.type)
        ? [{ name: p.name, type: p.type, result: Number(p.position) === 0 || p.mode?.toUpperCase() === 'OUT' }]
        : [],
    );
    return {
      type,
      name,
      label: `${type} ${display(name, 'mysql')}(${args.join(', ')})`,
      integers,
      body: row.body,
      firesOn: [],
    };
  });
  const triggers = (await session.query<TriggerRow>(triggersSql)).map((row): RoutineFacts => {
    const table = { schema: row.schema_name, name: row.table_name };
    const label = `trigger ${displayPart(row.name, 'mysql')} on ${display(table, 'mysql')}`;
    return {
      type: 'trigger',
      name: { schema: row.schema_name, name: row.name },
      label,
      integers: [],
      body: row.body,
      firesOn: [table],
    };
  });
  return [...routines, ...triggers];
}

/**
 * Measured on MariaDB 10.11 with mysql2 and mariadb (docs/migrating-existing-tables.md): once the
 * trigger sets the key, AUTO_INCREMENT generates nothing and LAST_INSERT_ID() keeps its earlier
 * value, while the OK packet's insertId carries the id the trigger set into an AUTO_INCREMENT key.
 */
function lastInsertId(tables: readonly TableToMigrate[]): MigrationWarning[] {
  if (tables.length === 0) return [];
  const list = (ts: readonly TableToMigrate[]) => ts.map((t) => display(t.table, 'mysql')).join(', ');
  const manual = tables.filter((t) => t.generator.kind !== 'auto_increment');
  const zero =
    manual.length > 0
      ? `; ${list(manual)} ${manual.length > 1 ? 'have no AUTO_INCREMENT, so their' : 'has no AUTO_INCREMENT, so its'} insertId is 0 as well`
      : '';
  return [
    {
      kind: 'last-insert-id',
      objects: tables.map((t) => ({ type: 'table', ...t.table })),
      message:
        `after the migration LAST_INSERT_ID() no longer returns the id of a row inserted into ${list(tables)}: ` +
        "sheaf's trigger sets the key, so AUTO_INCREMENT generates none and LAST_INSERT_ID() keeps its earlier " +
        "value (0, or the id of an earlier insert into another table); read the driver's insertId of a one-row " +
        'insert (the sheaf id while the key keeps AUTO_INCREMENT; 0 once --no-auto-increment drops it), use ' +
        `insert … returning id, or call sheaf_next_id() first and insert that id${zero}`,
    },
  ];
}

/** A routine or trigger that inserts into a migrated table and calls LAST_INSERT_ID(). */
function lastInsertIdCall(routine: RoutineFacts, migrated: readonly QualifiedName[]): MigrationWarning | undefined {
  if (!callsLastInsertId.test(routine.body)) return undefined;
  const written = insertsInto(routine.body, migrated);
  if (written.length === 0) return undefined;
  const instead =
    routine.type === 'trigger'
      ? 'read NEW.<key> in a trigger on that table'
      : 'call sheaf_next_id() first and insert that id';
  return {
    kind: 'last-insert-id',
    objects: [{ type: routine.type, ...routine.name }],
    message:
      `${routine.label} inserts into ${written.map((t) => display(t, 'mysql')).join(', ')} and calls LAST_INSERT_ID(): ` +
      `after the migration that returns 0 or an earlier insert's id, not the new row's; ${instead}, or use insert … returning id`,
  };
}

/** MariaDB sequences that fed migrated keys: the migration drops those defaults and keeps the sequences. */
async function keptSequences(session: SqlExecutor, tables: readonly TableToMigrate[]): Promise<MigrationWarning[]> {
  const fed = tables.filter((t) => t.generator.kind === 'sequence');
  if (fed.length === 0) return [];
  const users = await session.query<{
    schema_name: string;
    table_name: string;
    column_name: string;
    expression: string;
  }>(sequenceUsersSql);
  const kept = new Map<string, { sequence: QualifiedName; keys: string[] }>();
  for (const { table, primaryKey, generator } of fed) {
    if (generator.kind !== 'sequence') continue;
    const entry = kept.get(nameKey(generator.sequence)) ?? { sequence: generator.sequence, keys: [] };
    entry.keys.push(`${display(table, 'mysql')}.${displayPart(primaryKey.column, 'mysql')}`);
    kept.set(nameKey(generator.sequence), entry);
  }
  return [...kept.values()].map(({ sequence, keys }) => {
    const others = users
      .filter((u) => word(sequence.name).test(u.expression))
      .map(
        (u) =>
          `${display({ schema: u.schema_name, name: u.table_name }, 'mysql')}.${displayPart(u.column_name, 'mysql')}`,
      )
      .filter((user) => !keys.includes(user));
    const still =
      others.length > 0
        ? `; it is still the default of ${others.join(', ')}`
        : '; drop it once nothing else calls nextval() on it';
    return {
      kind: 'kept-sequence' as const,
      objects: [{ type: 'sequence' as const, ...sequence }],
      message:
        `sequence ${display(sequence, 'mysql')} is kept: MariaDB sequences have no owner, so other code may use it; ` +
        `the migration replaces the default nextval() of ${keys.join(', ')} with 0 (sheaf's trigger fills 0), so it no longer feeds them${still}`,
    };
  });
}
