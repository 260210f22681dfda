import { postgresDialect } from '@sheaf/core';
import type {
  ColumnToWiden,
  Dependent,
  Inspection,
  Migration,
  MigrationStep,
  QualifiedName,
  TableToMigrate,
} from '../model.js';
import { display, displayPart, nameKey, qualify } from '../names.js';

const q = (name: QualifiedName) => qualify(postgresDialect, name);
const ident = (name: string) => postgresDialect.quoteIdent(name);

/**
 * The PostgreSQL migration for an inspection, as one transaction: drop what blocks ALTER TYPE
 * (dependent views, column triggers, foreign keys), retire the old generators, widen every column
 * with one ALTER per table (one rewrite each), default the keys to `sheaf.next_id()`, then put back
 * exactly what was dropped. Existing ids are kept as they are.
 *
 * @example
 * const { steps } = renderPostgres(await inspectPostgres(executor, { tables: ['orders'] }));
 */
export function renderPostgres(inspection: Inspection): Migration {
  const views = inspection.dependents.filter((d) => d.kind === 'view' || d.kind === 'materialized view');
  const viewKeys = new Set(views.map((view) => nameKey(view.name)));
  // Triggers and indexes of a dropped view go with it; the others are dropped one by one.
  const triggers = inspection.dependents.filter((d) => d.kind === 'trigger' && !viewKeys.has(nameKey(d.table)));
  const steps: MigrationStep[] = [
    ...[...views].reverse().map(dropView),
    ...triggers.map(dropTrigger),
    ...inspection.foreignKeys.map((fk) => ({
      sql: `alter table ${q(fk.table)} drop constraint ${ident(fk.name)}`,
      describe: `drop foreign key ${displayPart(fk.name)} on ${display(fk.table)} (re-added after)`,
    })),
    ...inspection.tables.flatMap(retireGenerator),
    ...alterTypes(inspection.columns),
    ...inspection.tables.map(setDefault),
    ...inspection.foreignKeys.map((fk) => ({
      sql: `alter table ${q(fk.table)} add constraint ${ident(fk.name)} ${fk.definition}`,
      describe: `add foreign key ${displayPart(fk.name)} on ${display(fk.table)} → ${display(fk.references)}`,
    })),
    ...inspection.dependents.filter((d) => d.recreate && d.kind !== 'trigger').flatMap(recreate),
    ...triggers.flatMap(recreate),
  ];
  return { dialect: 'postgres', steps, transactional: true };
}

function dropView(view: Dependent): MigrationStep {
  return {
    sql: `drop ${view.kind} ${q(view.name)}`,
    describe: `drop ${view.kind} ${display(view.name)} (re-created after)`,
  };
}

function dropTrigger(trigger: Dependent): MigrationStep {
  return {
    sql: `drop trigger ${ident(trigger.name.name)} on ${q(trigger.table)}`,
    describe: `drop trigger ${displayPart(trigger.name.name)} on ${display(trigger.table)} (re-created after)`,
  };
}

function retireGenerator({ table, primaryKey, generator }: TableToMigrate): MigrationStep[] {
  const column = `${display(table)}.${displayPart(primaryKey.column)}`;
  const alter = `alter table ${q(table)} alter column ${ident(primaryKey.column)}`;
  if (generator.kind === 'identity') {
    return [
      {
        sql: `${alter} drop identity`,
        describe: `drop identity of ${column} and its sequence ${display(generator.sequence)}`,
      },
    ];
  }
  if (generator.kind !== 'sequence') return [];
  const steps = [
    { sql: `${alter} drop default`, describe: `drop default nextval(${display(generator.sequence)}) of ${column}` },
  ];
  // A sequence other columns still draw from stays.
  if (generator.owned)
    steps.push({
      sql: `drop sequence ${q(generator.sequence)}`,
      describe: `drop sequence ${display(generator.sequence)}`,
    });
  return steps;
}

/** One ALTER TABLE per table: PostgreSQL rewrites the table once for all its columns. */
function alterTypes(columns: readonly ColumnToWiden[]): MigrationStep[] {
  const byTable = new Map<string, ColumnToWiden[]>();
  for (const column of columns)
    byTable.set(nameKey(column.table), [...(byTable.get(nameKey(column.table)) ?? []), column]);
  return [...byTable.values()].map((group) => {
    const table = group[0]!.table;
    const clauses = group.map((column) => `alter column ${ident(column.column)} type bigint`);
    return {
      sql: `alter table ${q(table)}\n  ${clauses.join(',\n  ')}`,
      describe: `alter table ${display(table)}: ${group.map((column) => displayPart(column.column)).join(', ')} → bigint`,
    };
  });
}

function setDefault({ table, primaryKey }: TableToMigrate): MigrationStep {
  return {
    sql: `alter table ${q(table)} alter column ${ident(primaryKey.column)} set default sheaf.next_id()`,
    describe: `set default sheaf.next_id() on ${display(table)}.${displayPart(primaryKey.column)}`,
  };
}

function recreate(dependent: Dependent): MigrationStep[] {
  const what = `${dependent.kind} ${dependent.kind === 'trigger' ? `${displayPart(dependent.name.name)} on ${display(dependent.table)}` : display(dependent.name)}`;
  return [
    { sql: dependent.definition, describe: `create ${what}` },
    ...(dependent.restore ?? []).map((sql) => ({ sql, describe: `restore ${sql.split(' ')[0]} on ${what}` })),
  ];
}
