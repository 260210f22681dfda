import type { Dependent, Inspection, QualifiedName } from '../model.js';
import type { CheckConstraint } from './online-checks.js';
import type { IndexCopy } from './online-indexes.js';
import { copyFunction, copyTriggerName, literal, notNullCheckName, q, qualified } from './online-names.js';
import { type OnlineTable, sameTable } from './online-plan.js';

/** What the swap re-reads per table under its locks, so nothing added meanwhile is lost. */
export interface TableObjects {
  readonly indexes: readonly IndexCopy[];
  readonly checks: readonly CheckConstraint[];
  /** Column grants, statistics targets and options of the old columns, restated on the renamed shadows. */
  readonly columnSettings: readonly string[];
}

/** The swap's statements, and per table what to run once it committed. */
export interface SwapSql {
  readonly statements: readonly string[];
  readonly afterSwap: ReadonlyMap<OnlineTable, readonly string[]>;
}

/**
 * The statements of the swap transaction, in order: dependents and foreign keys out, old columns
 * (with their indexes, constraints and owned sequence or identity) dropped, shadows renamed into
 * place, prepared indexes attached, column grants and settings restated, foreign keys back as
 * `not valid`, dependents re-created. Every statement changes only the catalog: NOT NULL is proved
 * by the validated checks, indexes exist.
 */
export function swapSql(
  inspection: Inspection,
  plan: readonly OnlineTable[],
  objects: ReadonlyMap<OnlineTable, TableObjects>,
): SwapSql {
  const recreated = inspection.dependents.filter((d) => d.recreate);
  const views = recreated.filter((d) => d.kind === 'view' || d.kind === 'materialized view');
  // A view's triggers and indexes go with it; triggers on tables are dropped one by one.
  const triggers = recreated.filter((d) => d.kind === 'trigger' && !views.some((v) => sameTable(v.name, d.table)));
  const statements = [
    ...[...views].reverse().map(dropDependent),
    ...triggers.map(dropDependent),
    ...inspection.foreignKeys.map((fk) => `alter table ${qualified(fk.table)} drop constraint ${q(fk.name)}`),
    ...plan.flatMap((entry) => replaceColumns(entry)),
    ...plan.flatMap((entry) => (objects.get(entry)?.indexes ?? []).map((index) => attachIndex(entry, index))),
    ...plan.flatMap((entry) =>
      (objects.get(entry)?.checks ?? []).map(
        (check) =>
          `alter table ${qualified(entry.table)} add constraint ${q(check.name)} ${notValid(check.definition)}`,
      ),
    ),
    ...plan.flatMap((entry) => objects.get(entry)?.columnSettings ?? []),
    ...inspection.foreignKeys.map(
      (fk) => `alter table ${qualified(fk.table)} add constraint ${q(fk.name)} ${notValid(fk.definition)}`,
    ),
    ...recreated.filter((d) => d.kind !== 'trigger').flatMap(recreate),
    ...recreated.filter((d) => d.kind === 'trigger').flatMap(recreate),
  ];
  const afterSwap = new Map(plan.map((entry) => [entry, afterSwapSql(inspection, entry, objects.get(entry))]));
  return { statements, afterSwap };
}

/** Validates the table's constraints that were valid before (scans that let writes through), then analyzes it. */
function afterSwapSql(inspection: Inspection, entry: OnlineTable, objects: TableObjects | undefined): string[] {
  const valid = [
    ...inspection.foreignKeys.filter((fk) => sameTable(fk.table, entry.table) && !isNotValid(fk.definition)),
    ...(objects?.checks ?? []).filter((check) => check.validated),
  ];
  return [
    ...valid.map((constraint) => `alter table ${qualified(entry.table)} validate constraint ${q(constraint.name)}`),
    `analyze ${qualified(entry.table)}`,
  ];
}

const isNotValid = (definition: string) => /\sNOT VALID\s*$/i.test(definition);

function recreate(dependent: Dependent): string[] {
  return [dependent.definition, ...(dependent.restore ?? [])];
}

function dropDependent(dependent: Dependent): string {
  if (dependent.kind === 'trigger') return `drop trigger ${q(dependent.name.name)} on ${qualified(dependent.table)}`;
  return `drop ${dependent.kind} ${qualified(dependent.name)}`;
}

/** A constraint as `not valid`: checking every row happens after the swap, without blocking writes. */
function notValid(definition: string): string {
  return `${definition.replace(/\s+NOT VALID\s*$/i, '')} not valid`;
}

function replaceColumns(entry: OnlineTable): string[] {
  const table = qualified(entry.table);
  const key = entry.migrated?.primaryKey.column;
  const keyKept = key !== undefined && !entry.columns.some((c) => c.column === key);
  if (entry.columns.length === 0) return keepKey(entry);
  return [
    `drop trigger ${q(copyTriggerName)} on ${table}`,
    `drop function ${qualified(copyFunction(entry.oid))}()`,
    ...(keyKept ? keepKey(entry) : retireSequence(entry)),
    // Takes the old columns' indexes, constraints and identity sequences with them.
    `alter table ${table} ${entry.columns.map((c) => `drop column ${q(c.column)}`).join(', ')}`,
    ...(!keyKept && entry.migrated?.generator.kind === 'sequence' && entry.migrated.generator.owned
      ? [`drop sequence ${qualified(entry.migrated.generator.sequence)}`]
      : []),
    ...entry.columns.map((c) => `alter table ${table} rename column ${q(c.shadow)} to ${q(c.column)}`),
    ...entry.columns.flatMap((c) => {
      const check = q(notNullCheckName(c.attnum));
      const fallback = c.column === key ? 'sheaf.next_id()' : c.default;
      return [
        ...(c.notNull ? [`alter table ${table} alter column ${q(c.column)} set not null`] : []),
        ...(c.notNull ? [`alter table ${table} drop constraint ${check}`] : []),
        ...(fallback ? [`alter table ${table} alter column ${q(c.column)} set default ${fallback}`] : []),
        ...(c.comment ? [`comment on column ${table}.${q(c.column)} is ${literal(c.comment)}`] : []),
      ];
    }),
  ];
}

/**
 * A `serial` sequence is detached before its column goes, so the drop never takes a sequence another
 * column still draws from; one only this key used is dropped after, as the offline migration does.
 */
function retireSequence(entry: OnlineTable): string[] {
  const generator = entry.migrated?.generator;
  if (generator?.kind !== 'sequence') return [];
  const column = `${qualified(entry.table)} alter column ${q(entry.migrated!.primaryKey.column)}`;
  return [`alter table ${column} drop default`, `alter sequence ${qualified(generator.sequence)} owned by none`];
}

/** A key already bigint keeps its column: its sequence or identity is retired and sheaf's default set, as offline. */
function keepKey(entry: OnlineTable): string[] {
  const migrated = entry.migrated;
  if (!migrated) return [];
  const column = `${qualified(entry.table)} alter column ${q(migrated.primaryKey.column)}`;
  const generator = migrated.generator;
  return [
    ...(generator.kind === 'identity' ? [`alter table ${column} drop identity`] : []),
    ...retireSequence(entry),
    ...(generator.kind === 'sequence' && generator.owned ? [`drop sequence ${qualified(generator.sequence)}`] : []),
    `alter table ${column} set default sheaf.next_id()`,
  ];
}

function attachIndex(entry: OnlineTable, index: IndexCopy): string {
  const copy = qualified({ schema: entry.table.schema, name: index.copy } satisfies QualifiedName);
  if (!index.constraint) return `alter index ${copy} rename to ${q(index.name)}`;
  const kind = index.constraint.kind === 'p' ? 'primary key' : 'unique';
  // ADD … USING INDEX renames the index after the constraint, as the old one was.
  return `alter table ${qualified(entry.table)} add constraint ${q(index.constraint.name)} ${kind} using index ${q(index.copy)} ${index.constraint.deferrable}`.trimEnd();
}
