import type { Dialect, DialectName } from '@sheaf/core';
import type { QualifiedName } from './model.js';
import { oneLine } from './one-line.js';

/** `schema.name`, each part quoted by the dialect: safe in any statement, whatever the name holds. */
export function qualify(dialect: Dialect, name: QualifiedName): string {
  return `${dialect.quoteIdent(name.schema)}.${dialect.quoteIdent(name.name)}`;
}

/** How people see a quoted name of each server: as its own SQL spells it, so that it can be pasted back. */
const quotes = { postgres: '"', mysql: '`' } as const satisfies Record<DialectName, string>;

/**
 * `schema.name` for people: plain parts as they are, others quoted as the server quotes them
 * (PostgreSQL's double quotes, MySQL's backticks).
 *
 * @example
 * display({ schema: 'shop', name: 'a`b' }, 'mysql'); // 'shop.`a``b`'
 */
export function display(name: QualifiedName, dialect: DialectName = 'postgres'): string {
  return `${displayPart(name.schema, dialect)}.${displayPart(name.name, dialect)}`;
}

/** One identifier for people: quoted only when it needs to be, control characters spelled out. */
export function displayPart(part: string, dialect: DialectName = 'postgres'): string {
  const quote = quotes[dialect];
  return /^[a-z_][a-z0-9_$]*$/.test(part) ? part : `${quote}${oneLine(part.replaceAll(quote, quote + quote))}${quote}`;
}

/** A key for maps and sets of names: unambiguous whatever characters the parts hold. */
export function nameKey(name: QualifiedName): string {
  return JSON.stringify([name.schema, name.name]);
}

/** Orders names by schema, then name. */
export function byName(a: QualifiedName, b: QualifiedName): number {
  return a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name);
}
