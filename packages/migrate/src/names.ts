import type { Dialect } from '@sheaf/core';
import type { QualifiedName } from './model.js';
import { oneLine } from './one-line.js';

/** `schema.name`, each part quoted by the dialect: safe in any statement, whatever the name holds. */
export function qualify(dialect: Dialect, name: QualifiedName): string {
  return `${dialect.quoteIdent(name.schema)}.${dialect.quoteIdent(name.name)}`;
}

/** `schema.name` for people: plain parts as they are, others in double quotes (as PostgreSQL prints them). */
export function display(name: QualifiedName): string {
  return `${displayPart(name.schema)}.${displayPart(name.name)}`;
}

/** One identifier for people: quoted only when it needs to be, control characters spelled out. */
export function displayPart(part: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(part) ? part : `"${oneLine(part.replaceAll('"', '""'))}"`;
}

/** A key for maps and sets of names: unambiguous whatever characters the parts hold. */
export function nameKey(name: QualifiedName): string {
  return JSON.stringify([name.schema, name.name]);
}

/** Orders names by schema, then name. */
export function byName(a: QualifiedName, b: QualifiedName): number {
  return a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name);
}
