import { mysqlDialect, sheafTriggerSql } from '@sheaf/core';
import { firesBeforeInsert } from '../inspect/mysql-dependents.js';
import { sheafTriggerName } from '../inspect/mysql-preflight.js';
import { replaceSequenceDefault } from '../inspect/mysql-sequences.js';
import type {
  ColumnToWiden,
  ForeignKey,
  Inspection,
  Migration,
  MigrationStep,
  PlanOptions,
  QualifiedName,
} from '../model.js';
import { displayPart, nameKey } from '../names.js';
import { autoIncrementKeys } from './key-shapes.js';
import { addForeignKey, dropForeignKey, modifyColumn, triggerFilledKey } from './mysql-clauses.js';
import {
  dropAutoIncrementReversal,
  dropForeignKeysReversal,
  readdReversal,
  triggerReversal,
  widenReversal,
} from './mysql-reversal.js';

const q = mysqlDialect.quoteIdent;
// Descriptions become `--` comments in the migration files: displayPart spells out line breaks,
// which would end the comment, and quotes names with backticks as MySQL does.
const label = (name: string) => displayPart(name, 'mysql');
const labels = (names: readonly string[]) => names.map(label).join(', ');

/**
 * Renders the MySQL/MariaDB migration of an inspection. Every DDL statement commits on its own
 * (`transactional: false`), in this order:
 * 1. drop the foreign keys touching a changing column (MySQL refuses to change a column a foreign
 *    key uses);
 * 2. per table, referenced tables first, one `alter table … modify … bigint` for all its changing
 *    columns (one table copy), adding back in the same statement the foreign keys whose parent is
 *    already done;
 * 3. add back the rest (self-references and cycles: a key cannot be added in the statement that
 *    changes both its sides);
 * 4. create sheaf's BEFORE INSERT trigger on each migrated table, before any other BEFORE INSERT
 *    trigger there (`precedes`), so that those see the id.
 * Keys become signed `bigint`, the type sheaf's functions return: an unsigned key would need every
 * referencing column unsigned too, and the floor check already proves every existing key fits.
 * AUTO_INCREMENT stays where it was, so that a driver's `insertId` is the sheaf id the trigger set;
 * the counter no longer produces keys (the trigger fills the key first, and the first sheaf id moves
 * the counter past the floor). Existing keys keep their values. With `autoIncrement: false`:
 * 5. drop AUTO_INCREMENT from every key that has it, sheaf-keyed tables' too (`default 0` instead):
 *    last, so that until its trigger exists a key goes on getting counter values, not 0; on
 *    MariaDB 10.11 this changes only the table's metadata.
 *
 * @example
 * const migration = renderMysql(await inspectMysql(executor, { all: true }));
 */
export function renderMysql(inspection: Inspection, options: PlanOptions = {}): Migration {
  const home =
    inspection.tables[0]?.table.schema ?? inspection.columns[0]?.table.schema ?? inspection.skipped?.[0]?.table.schema;
  const ref = (name: QualifiedName) => (name.schema === home ? q(name.name) : `${q(name.schema)}.${q(name.name)}`);
  const { altered, deferred } = alterOrder(inspection.columns, inspection.foreignKeys);
  const steps: MigrationStep[] = [
    ...byTable(inspection.foreignKeys).map(([table, fks]) => ({
      sql: `alter table ${ref(table)} ${fks.map(dropForeignKey).join(', ')}`,
      describe: `drop foreign key${fks.length > 1 ? 's' : ''} ${labels(fks.map((fk) => fk.name))} on ${label(table.name)}`,
      ...dropForeignKeysReversal(ref, table, fks),
    })),
    ...altered.map(({ table, columns, foreignKeys }) => ({
      sql: `alter table ${ref(table)} ${[...columns.map(modify), ...foreignKeys.map(addForeignKey)].join(', ')}`,
      describe: `${label(table.name)}: ${columns.map((c) => `${label(c.column)} ${c.dataType} → bigint`).join(', ')}${readds(foreignKeys)}`,
      ...widenReversal(ref, table, columns, foreignKeys),
    })),
    ...byTable(deferred).map(([table, fks]) => ({
      sql: `alter table ${ref(table)} ${fks.map(addForeignKey).join(', ')}`,
      describe: `${label(table.name)}: re-add foreign key${fks.length > 1 ? 's' : ''} ${labels(fks.map((fk) => fk.name))}`,
      ...readdReversal(ref, table, fks),
    })),
    ...inspection.tables.map(({ table, primaryKey }) => ({
      sql: triggerSql(inspection, table, primaryKey.column, options),
      describe: `${label(table.name)}: create trigger ${label(sheafTriggerName(table.name))} (sheaf ids for ${label(primaryKey.column)})`,
      ...triggerReversal(ref, { schema: table.schema, name: sheafTriggerName(table.name) }),
    })),
    ...(options.autoIncrement === false ? autoIncrementKeys(inspection) : []).map((counted) => ({
      sql: `alter table ${ref(counted.key.table)} ${modifyColumn(triggerFilledKey(counted.key), counted.type)}`,
      describe: `${label(counted.key.table.name)}: ${label(counted.key.column)} without AUTO_INCREMENT (default 0, filled by sheaf's trigger)`,
      ...dropAutoIncrementReversal(ref, counted),
    })),
  ];
  return { dialect: 'mysql', steps, transactional: false };
}

// A MariaDB sequence default would fill the key before sheaf's trigger sees it: it becomes 0.
const modify = (column: ColumnToWiden) => modifyColumn(replaceSequenceDefault(column), 'bigint');

const readds = (fks: readonly ForeignKey[]) =>
  fks.length === 0 ? '' : `; re-add foreign key${fks.length > 1 ? 's' : ''} ${labels(fks.map((fk) => fk.name))}`;

function byTable(fks: readonly ForeignKey[]): [QualifiedName, ForeignKey[]][] {
  const groups = new Map<string, [QualifiedName, ForeignKey[]]>();
  for (const fk of fks) {
    const group = groups.get(nameKey(fk.table)) ?? [fk.table, []];
    group[1].push(fk);
    groups.set(nameKey(fk.table), group);
  }
  return [...groups.values()];
}

interface TableChange {
  readonly table: QualifiedName;
  readonly columns: ColumnToWiden[];
  readonly foreignKeys: ForeignKey[];
}

/**
 * Orders the per-table ALTERs so that each table comes after the tables it references, and puts
 * each foreign key into its table's ALTER when its parent is already done; the rest are deferred.
 */
function alterOrder(columns: readonly ColumnToWiden[], fks: readonly ForeignKey[]) {
  const pending = new Map<string, TableChange>();
  for (const column of columns) {
    const change = pending.get(nameKey(column.table)) ?? { table: column.table, columns: [], foreignKeys: [] };
    change.columns.push(column);
    pending.set(nameKey(column.table), change);
  }
  // A parent with no changing column can take a foreign key at any time: count it as done.
  const done = new Set(fks.map((fk) => nameKey(fk.references)).filter((key) => !pending.has(key)));
  const parentsOf = (key: string) =>
    fks.filter((fk) => nameKey(fk.table) === key && nameKey(fk.references) !== key).map((fk) => fk.references);
  const altered: TableChange[] = [];
  while (pending.size > 0) {
    // Referenced tables first; in a cycle, whichever comes first, its keys into the cycle deferred.
    const ready = [...pending.keys()].find((key) => parentsOf(key).every((p) => done.has(nameKey(p))));
    const key = ready ?? ([...pending.keys()][0] as string);
    const change = pending.get(key) as TableChange;
    pending.delete(key);
    done.add(key);
    const own = fks.filter((fk) => nameKey(fk.table) === key && nameKey(fk.references) !== key);
    change.foreignKeys.push(...own.filter((fk) => done.has(nameKey(fk.references))));
    altered.push(change);
  }
  const placed = new Set(altered.flatMap((change) => change.foreignKeys));
  return { altered, deferred: fks.filter((fk) => !placed.has(fk)) };
}

function triggerSql(inspection: Inspection, table: QualifiedName, column: string, options: PlanOptions): string {
  const database = options.triggersCallState ? table.schema : undefined;
  const { create } = sheafTriggerSql(table.name, column, { name: sheafTriggerName(table.name), database });
  const first = inspection.dependents.find((d) => nameKey(d.table) === nameKey(table) && firesBeforeInsert(d));
  if (!first) return create;
  const [head, ...body] = create.split('\n');
  return [`${head} precedes ${q(first.name.name)}`, ...body].join('\n');
}
