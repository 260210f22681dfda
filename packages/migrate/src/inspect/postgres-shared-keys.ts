import type { SqlExecutor } from '@sheaf/core';
import { display, displayPart } from '../names.js';
import { sharedKeyReason } from './shared-key-reason.js';

// Primary keys of one column that are also the whole of a foreign key to another table.
const sharedKeysSql = `
  select con.conrelid::text as oid, n.nspname as schema, c.relname as table, a.attname as column,
    con.conname as name, fn.nspname as fschema, fc.relname as ftable, fa.attname as fcolumn
  from pg_constraint con
  join pg_constraint pk on pk.conrelid = con.conrelid and pk.contype = 'p' and pk.conkey = con.conkey
  join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
  join pg_class fc on fc.oid = con.confrelid join pg_namespace fn on fn.oid = fc.relnamespace
  join pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = con.confkey[1]
  where con.contype = 'f' and cardinality(con.conkey) = 1 and con.confrelid <> con.conrelid
  order by con.conname`;

interface SharedKeyRow {
  oid: string;
  schema: string;
  table: string;
  column: string;
  name: string;
  fschema: string;
  ftable: string;
  fcolumn: string;
}

/**
 * Tables whose primary key is also a foreign key to another table (a shared one-to-one key), by
 * oid, each with the reason the plan gives for leaving it without a sheaf default.
 */
export async function postgresSharedKeys(session: SqlExecutor): Promise<Map<string, string>> {
  const rows = await session.query<SharedKeyRow>(sharedKeysSql);
  const shared = new Map<string, string>();
  for (const row of rows) {
    if (shared.has(row.oid)) continue;
    const parent = { schema: row.fschema, name: row.ftable };
    shared.set(
      row.oid,
      sharedKeyReason({
        table: display({ schema: row.schema, name: row.table }),
        column: displayPart(row.column),
        foreignKey: displayPart(row.name),
        parent: display(parent),
        parentColumn: displayPart(row.fcolumn),
      }),
    );
  }
  return shared;
}
