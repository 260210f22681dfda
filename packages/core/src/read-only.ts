import { SheafError } from './errors.js';

/** PostgreSQL's read_only_sql_transaction; MySQL and MariaDB report it as SQLSTATE 25006 too. */
const readOnlyState = '25006';
/** ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION. */
const mysqlReadOnlyErrno = 1792;

/** PL/pgSQL frames name the function with its schema: the last one is the outermost call. */
const plpgsqlFrame = /\bfunction (sheaf\.\w+)\(/g;
/** The native path's next_id(), a C function inlined into the statement that calls it. */
const pgNextIdCall = /\bsheaf\s*\.\s*next_id\s*\(/i;
/** A MySQL routine of sheaf's that writes (the others cannot meet a read-only transaction's refusal). */
const mysqlWritingCall =
  /\b(sheaf_(?!(?:decode_id|encode_id|id_floor|id_ceiling|id_time|id_shard|id_sequence)\b)\w+)\s*\(/gi;
/** The bodies behind `sheaf.next_id()` (PL/pgSQL or native), which callers know by its name. */
const nextIdBody = /^sheaf\._(?:plpgsql|native)_next_id$/;

/**
 * READ_ONLY for a write of sheaf's SQL refused by a read-only transaction (every transaction of a
 * PostgreSQL hot standby is one). The server's 25006 names `nextval()` or "statement", not sheaf's
 * function, so it counts as sheaf's only when the refused write was inside one: PostgreSQL names the
 * PL/pgSQL function in `where`; the native path's next_id() is a C function inlined into the
 * statement, which then calls `sheaf.next_id(`; on MySQL the statement calls a writing `sheaf_`
 * routine. A plain `insert` into a table whose key sheaf fills is refused before sheaf's code runs
 * and stays the driver's error. Undefined for any other error.
 */
export function fromReadOnly(
  state: unknown,
  errno: unknown,
  message: string,
  where: unknown,
  sql: string | undefined,
  cause: unknown,
): SheafError | undefined {
  if (state !== readOnlyState) return undefined;
  const mysql = typeof errno === 'number';
  if (mysql && errno !== mysqlReadOnlyErrno) return undefined;
  // Knex puts the statement and ' - ' before the server's message.
  const server = /(?:^| - )([Cc]annot execute .*)$/.exec(message)?.[1] ?? message;
  const statement = `${sql ?? ''}\n${message}`;
  const name = mysql ? [...statement.matchAll(mysqlWritingCall)][0]?.[1] : postgresFunction(where, server, statement);
  if (name === undefined) return undefined;
  // A hot standby refuses with this very error; a MySQL replica's read_only is another (1290).
  const [standby, readWrite, setting] = mysql
    ? ['', 'start transaction read write', 'tx_read_only']
    : ['on a hot standby, connect to the primary; otherwise ', 'begin read write', 'default_transaction_read_only'];
  return new SheafError(
    'READ_ONLY',
    `${name}() cannot run in a read-only transaction (${server}): ids are made on the primary, outside ` +
      `read-only transactions; ${standby}take ids before the read-only transaction or in one that ` +
      `writes (${readWrite}; check ${setting})`,
    { cause, details: { sqlState: readOnlyState, function: name, ...(mysql ? { errno } : {}) } },
  );
}

function postgresFunction(where: unknown, message: string, statement: string): string | undefined {
  const outermost = typeof where === 'string' ? [...where.matchAll(plpgsqlFrame)].at(-1)?.[1] : undefined;
  if (outermost !== undefined) return publicName(outermost);
  return message.includes('nextval()') && pgNextIdCall.test(statement) ? 'sheaf.next_id' : undefined;
}

function publicName(name: string): string {
  return nextIdBody.test(name) ? 'sheaf.next_id' : name;
}
