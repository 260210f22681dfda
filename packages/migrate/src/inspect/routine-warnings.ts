import type { DialectName } from '@sheaf/core';
import type { MigrationWarning, QualifiedName } from '../model.js';
import { display, nameKey } from '../names.js';
import { isKeyParameter, type KeyNames, namesKeyColumn, tablesNamed } from './reference-names.js';

/** A stored function, procedure or trigger as both catalogs can describe it. */
export interface RoutineFacts {
  readonly type: 'function' | 'procedure' | 'trigger';
  readonly name: QualifiedName;
  /** How the plan names it: `function public.f(integer, text)`, `trigger app.t on app.orders`. */
  readonly label: string;
  /** Its integer parameters and results; `name` is '' for an unnamed one or the return type. */
  readonly integers: readonly IntegerSlot[];
  readonly body: string;
  /** The tables it fires on (a trigger, or a trigger function's triggers). */
  readonly firesOn: readonly QualifiedName[];
}

/** A pattern of the body that declares an integer where a key may land, and how the plan names it. */
export interface BodyInteger {
  readonly pattern: RegExp;
  readonly what: string;
}

export interface IntegerSlot {
  readonly name: string;
  readonly type: string;
  /** The return type, an OUT parameter or a column of `returns table`. */
  readonly result: boolean;
}

// An id by its name: id, order_id, p_id, orderId.
const idLike = (name: string) => /(^|_)id$/i.test(name) || /[a-z0-9]Id$/.test(name);

/**
 * Judges one routine (the heuristic of docs/migrating-existing-tables.md, "Warnings"). It is
 * reported when it has an integer slot that may receive a migrated key:
 * - a parameter named like a reference to a migrated table or a changing column (`customer_id`,
 *   `p_customer_id`, `customerId`; not the bare `id`), whatever the body does; or,
 * - when it handles those keys — fires on, or names in its body, a table whose key or references
 *   change, and names one of the changing columns (`id`, `customer_id`) — every integer parameter
 *   or OUT column named like an id or unnamed, an integer return type, and integers the body
 *   declares (`bodyIntegers`, the dialect's patterns: variables, casts, columns of tables it creates).
 * Anything else, such as an integer `quantity` parameter of a routine that reads `orders`, is left out.
 */
export function routineWarning(
  facts: RoutineFacts,
  names: KeyNames,
  bodyIntegers: readonly BodyInteger[],
  dialect: DialectName,
): MigrationWarning | undefined {
  const touched = new Set(names.tables.map(nameKey));
  const tables = unique([...facts.firesOn.filter((t) => touched.has(nameKey(t))), ...tablesNamed(facts.body, names)]);
  const handlesKeys = tables.length > 0 && namesKeyColumn(facts.body, names);
  const suspects = facts.integers.flatMap((slot) => {
    const byName = slot.name !== '' && isKeyParameter(names, slot.name);
    const byBody = handlesKeys && (slot.name === '' ? true : idLike(slot.name));
    if (!byName && !byBody) return [];
    if (slot.name === '') return [slot.result ? `its return type ${slot.type}` : `an unnamed ${slot.type} parameter`];
    return [`${slot.result ? 'result' : 'parameter'} ${slot.name} ${slot.type}`];
  });
  if (handlesKeys) suspects.push(...bodyIntegers.filter((b) => b.pattern.test(facts.body)).map((b) => b.what));
  if (suspects.length === 0) return undefined;
  const takesKeys = suspects.some((s) => s.startsWith('parameter ') || s.startsWith('an unnamed '));
  const handles = tables.length > 0 ? ` (it handles ${tables.map((t) => display(t, dialect)).join(', ')})` : '';
  return {
    kind: 'routine',
    objects: [{ type: facts.type, schema: facts.name.schema, name: facts.name.name }],
    message:
      `${facts.label} may be given migrated keys in ${list(suspects)}${handles}: sheaf ids do not fit ` +
      `there (${dialect === 'postgres' && takesKeys ? overloadGone : overflow[dialect]}); change them to bigint`,
  };
}

const overflow: Record<DialectName, string> = {
  postgres: 'calls fail with "integer out of range"',
  mysql: 'calls fail with "Out of range value", or clamp to the largest int outside strict mode',
};

// PostgreSQL casts bigint to integer only on assignment, never to pick a function: a caller passing a
// widened column (Pagila's film_in_stock calls inventory_in_stock(inventory_id)) breaks at commit.
const overloadGone =
  'a call passing a bigint, such as a widened key column, fails with "function … does not exist" from the ' +
  'moment the migration commits, and sheaf ids fail with "integer out of range"';

const list = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

function unique(tables: readonly QualifiedName[]): QualifiedName[] {
  return [...new Map(tables.map((table) => [nameKey(table), table])).values()];
}
