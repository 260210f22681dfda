import { postgresDialect } from '@sheaf/core';
import type { QualifiedName } from '../model.js';
import { qualify } from '../names.js';

export { display, displayPart } from '../names.js';

/** Quotes one identifier so any name, even `a"; drop table x; --`, is taken literally. */
export const q = postgresDialect.quoteIdent;

/** `"schema"."name"`, quoted. */
export function qualified(name: QualifiedName): string {
  return qualify(postgresDialect, name);
}

/** A string literal: single quotes doubled, so a name inside it cannot end it early. */
export function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

// PostgreSQL truncates identifiers to 63 bytes; a shadow name truncated that way could collide with
// another column's, so long names fall back to the old column's attribute number instead.
const maxIdentifierBytes = 63;

/**
 * The shadow column of `column`: `<column>_sheaf`, or `sheaf_shadow_<attnum>` when that would not fit
 * 63 bytes. Deterministic, so a resumed run finds the columns an interrupted one added.
 */
export function shadowColumn(column: string, attnum: number): string {
  const name = `${column}_sheaf`;
  return Buffer.byteLength(name) <= maxIdentifierBytes ? name : `sheaf_shadow_${attnum}`;
}

/** The check constraint standing in for the shadow's NOT NULL until the swap (per table, by attnum). */
export const notNullCheckName = (attnum: number) => `sheaf_online_not_null_${attnum}`;

/** The copy of an index on the shadow columns, named after the old index's oid (unique per database). */
export const indexCopyName = (indexOid: number) => `sheaf_online_index_${indexOid}`;

/** The trigger keeping the shadows equal; `zz` sorts it after user BEFORE triggers that may change keys. */
export const copyTriggerName = 'zz_sheaf_online_copy';

/** The trigger's function, in schema sheaf, named after the table's oid. */
export const copyFunction = (tableOid: number): QualifiedName => ({ schema: 'sheaf', name: `online_copy_${tableOid}` });

/** `$tag$body$tag$` with a tag the body does not contain (quoted identifiers may contain `$sheaf$`). */
export function dollarQuote(body: string): string {
  let tag = '$sheaf$';
  for (let n = 1; body.includes(tag); n++) tag = `$sheaf${n}$`;
  return `${tag}${body}${tag}`;
}
