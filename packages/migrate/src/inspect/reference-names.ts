import type { ColumnToWiden, QualifiedName, TableToMigrate } from '../model.js';

/**
 * What the warnings compare names against: the migrated tables, every table with a column that
 * becomes bigint, and the names a column or parameter holding one of their keys tends to have.
 */
export interface KeyNames {
  /** Tables whose keys or referencing columns change: a routine naming one may handle their keys. */
  readonly tables: readonly QualifiedName[];
  /** The changing columns' names (`id`, `customer_id`): what a routine handling those keys reads. */
  readonly columns: ReadonlySet<string>;
  /** Normalized reference names (see {@link normalize}) → the migrated table they point at. */
  readonly references: ReadonlyMap<string, QualifiedName>;
  /** The migrated tables' names and their singulars, normalized: a parameter `customer` takes a customer's key. */
  readonly tableNames: ReadonlySet<string>;
}

/**
 * `customer_id`, `customerId`, `CUSTOMER_ID` all become `customerid`: how a column or parameter
 * name is compared with the names a reference to a migrated table would have.
 */
export const normalize = (name: string): string => name.toLowerCase().replaceAll('_', '');

/**
 * English singular of a table name, good enough for `customers` → `customer`, `categories` →
 * `category`, `addresses` → `address`; names that do not end in s stay as they are.
 */
export function singular(name: string): string {
  if (/ies$/i.test(name)) return `${name.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/i.test(name)) return name.slice(0, -2);
  if (/[^s]s$/i.test(name)) return name.slice(0, -1);
  return name;
}

/**
 * The names of an inspection's keys: a reference to migrated table `customers` (key `id`) is
 * expected as `customers_id`, `customer_id` or `customerId`, and every referencing column that
 * changes (`orders.customer_id`) lends its own name too.
 */
export function keyNames(tables: readonly TableToMigrate[], columns: readonly ColumnToWiden[]): KeyNames {
  const references = new Map<string, QualifiedName>();
  const tableNames = new Set<string>();
  for (const { table, primaryKey } of tables) {
    for (const base of new Set([table.name, singular(table.name)])) {
      tableNames.add(normalize(base));
      references.set(normalize(`${base}_id`), table);
      references.set(normalize(`${base}_${primaryKey.column}`), table);
    }
  }
  const touched = new Map<string, QualifiedName>();
  for (const { table } of [...tables, ...columns]) touched.set(JSON.stringify([table.schema, table.name]), table);
  const keyColumns = new Set(tables.map((t) => t.primaryKey.column));
  return {
    tables: [...touched.values()],
    columns: new Set([...keyColumns, ...columns.map((c) => c.column)]),
    references,
    tableNames,
  };
}

/** The migrated table a column name points at: `customer_id`, `customers_id` or `customerId` → customers. */
export function referencedTable(names: KeyNames, column: string): QualifiedName | undefined {
  return names.references.get(normalize(column));
}

// Routines spell a parameter after the column it takes, often with a prefix: p_customer_id, in_customer_id, _customer_id.
const parameterPrefix = /^(p|in|i|a|arg|param)_|^_+/i;

/**
 * Whether a parameter is named like a key it may be given: a reference to a migrated table
 * (`p_customer_id`), the table itself (`customer`) or a changing referencing column (`parent_id`).
 * The bare key name (`id`) is not enough on its own: every table has one.
 */
export function isKeyParameter(names: KeyNames, parameter: string): boolean {
  const bare = normalize(parameter.replace(parameterPrefix, ''));
  if (names.references.has(bare) || names.tableNames.has(bare)) return true;
  return [...names.columns].some((column) => column !== 'id' && /id$/i.test(column) && normalize(column) === bare);
}

/** The tables of `names.tables` that `text` names as a whole word (any case; `"Quoted"` exactly). */
export function tablesNamed(text: string, names: KeyNames): QualifiedName[] {
  return names.tables.filter((table) => word(table.name).test(text) || text.includes(`"${table.name}"`));
}

/** Whether `text` names one of the changing columns as a whole word. */
export function namesKeyColumn(text: string, names: KeyNames): boolean {
  return [...names.columns].some((column) => word(column).test(text));
}

/** A case-insensitive match of `name` as a whole identifier (not inside a longer one). */
export function word(name: string): RegExp {
  return new RegExp(`(?<![\\w$])${literal(name)}(?![\\w$])`, 'i');
}

/**
 * The tables among `tables` that `text` inserts into (`insert into orders`, `insert ignore into
 * app.orders`, quoted or not): where reading back the new row's id matters.
 */
export function insertsInto(text: string, tables: readonly QualifiedName[]): QualifiedName[] {
  return tables.filter((table) => {
    const name = literal(table.name);
    return new RegExp(`\\binsert\\s+(?:\\w+\\s+)*?into\\s+(?:\\S+\\.)?[\`"]?${name}[\`"]?(?![\\w$])`, 'i').test(text);
  });
}

/** `name` as a regular expression matching it literally. */
export const literal = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
