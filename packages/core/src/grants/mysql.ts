import { mysqlDialect } from '../dialects/mysql.js';
import { SheafError } from '../errors.js';

/**
 * What an application calls on MySQL/MariaDB: taking ids, tickets, segments and worker leases, and
 * decoding. They run as their definer, so the account needs no right on the `sheaf_` tables nor on
 * the `sheaf__` helpers they call. Configuration (`sheaf_configure`) and creating tickets and
 * segments run as their caller and stay with the owner or an admin.
 */
const appRoutines = [
  ['function', 'sheaf_next_id'],
  ['function', 'sheaf_next_shard_id'],
  ['procedure', 'sheaf_next_ids'],
  ['procedure', 'sheaf_next_shard_ids'],
  ['function', 'sheaf_decode_id'],
  ['function', 'sheaf_id_time'],
  ['function', 'sheaf_id_shard'],
  ['function', 'sheaf_id_sequence'],
  ['function', 'sheaf_id_floor'],
  ['function', 'sheaf_id_ceiling'],
  ['function', 'sheaf_encode_id'],
  ['function', 'sheaf_next_ticket'],
  ['procedure', 'sheaf_ticket_series'],
  ['procedure', 'sheaf_alloc_segment'],
  ['procedure', 'sheaf_segment_class'],
  ['procedure', 'sheaf_alloc_segment_class'],
  ['procedure', 'sheaf_lease_worker'],
  ['procedure', 'sheaf_lease_worker_id'],
  ['function', 'sheaf_heartbeat_worker'],
  ['function', 'sheaf_release_worker'],
  ['function', 'sheaf_close_worker'],
] as const;

/** The names of {@link appRoutines}: what an application may execute (through the forwards, since SQL version 12). */
export const mysqlAppRoutineNames: ReadonlySet<string> = new Set(appRoutines.map(([, name]) => name));

/**
 * A MySQL/MariaDB account, parsed by {@link mysqlAccount}.
 *
 * @example
 * const { user, host, sql }: MysqlAccount = mysqlAccount('app@10.0.%'); // sql: '`app`@`10.0.%`'
 */
export interface MysqlAccount {
  readonly user: string;
  readonly host: string;
  /** The account as GRANT and CREATE USER take it: `` `user`@`host` ``. */
  readonly sql: string;
}

/**
 * Parses `user@host` (host `%` when left out; split at the last `@`), each part bare or quoted as
 * MySQL prints it (`'app'@'%'`, `` `app`@`%` ``), and quotes it as identifiers, which mean the
 * same in every sql_mode. Refuses an empty user name or host and NUL with `INVALID_ARGUMENT`.
 *
 * @example
 * mysqlAccount('app').sql; // '`app`@`%`'
 */
export function mysqlAccount(text: string): MysqlAccount {
  if (typeof text !== 'string') throw invalidAccount(text, 'is not text');
  const quoted = quotedPart(text);
  let user: string | undefined;
  let rest: string | undefined;
  if (quoted) [user, rest] = quoted;
  else {
    const at = text.lastIndexOf('@');
    [user, rest] = at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at)];
  }
  if (rest !== '' && !rest.startsWith('@')) throw invalidAccount(text, 'is not user@host');
  const hostText = rest.slice(1);
  const hostQuoted = quotedPart(hostText);
  if (hostQuoted && hostQuoted[1] !== '') throw invalidAccount(text, 'is not user@host');
  const host = rest === '' ? '%' : (hostQuoted?.[0] ?? hostText);
  if (user === '') throw invalidAccount(text, 'has an empty user name (an anonymous account)');
  if (host === '') throw invalidAccount(text, 'has an empty host (use % for any host)');
  if (`${user}${host}`.includes('\0')) throw invalidAccount(text, 'contains NUL, which no account name can');
  return { user, host, sql: quoteAccount(user, host) };
}

/**
 * The statements that give `account` (`user@host`, see {@link mysqlAccount}) exactly what an
 * application needs of sheaf in `database`: EXECUTE on the routines that take ids, tickets,
 * segments and worker leases and that decode ids, one by one. Nothing on the `sheaf_` tables, nothing
 * that configures sheaf or creates tickets and segments. Inserts through a sheaf trigger need none
 * of it: triggers run as their definer. Grants add up and MySQL has no deny, so an account that has
 * EXECUTE or table privileges on `database.*` keeps them: grant an application its own tables one
 * by one (docs/sql/mysql.md, Privileges).
 *
 * @example
 * for (const statement of mysqlAppGrants('app@%', 'shop')) await admin.query(statement);
 */
export function mysqlAppGrants(account: string, database: string): string[] {
  const grantee = mysqlAccount(account).sql;
  if (typeof database !== 'string' || database === '' || database.length > 64 || database.includes('\0')) {
    throw new SheafError('INVALID_ARGUMENT', `database ${JSON.stringify(database)} is not a MySQL database name`, {
      details: { database: typeof database === 'string' ? database : String(database) },
    });
  }
  const schema = mysqlDialect.quoteIdent(database);
  return appRoutines.map(([kind, name]) => `grant execute on ${kind} ${schema}.${name} to ${grantee}`);
}

// As identifiers: a backslash means itself whatever the sql_mode, as it would not in '…'.
function quoteAccount(user: string, host: string): string {
  return `${mysqlDialect.quoteIdent(user)}@${mysqlDialect.quoteIdent(host)}`;
}

/** A leading quoted part (`'…'`, `"…"` or `` `…` ``, the quote doubled inside) and what follows it. */
function quotedPart(text: string): [string, string] | undefined {
  const mark = text[0];
  if (mark !== "'" && mark !== '"' && mark !== '`') return undefined;
  let value = '';
  for (let i = 1; i < text.length; i++) {
    if (text[i] !== mark) value += text[i];
    else if (text[i + 1] === mark) value += text[i++];
    else return [value, text.slice(i + 1)];
  }
  return undefined;
}

function invalidAccount(text: unknown, problem: string): SheafError {
  return new SheafError('INVALID_ARGUMENT', `MySQL account ${JSON.stringify(text)} ${problem}`, {
    details: { account: typeof text === 'string' ? text : String(text) },
  });
}

/**
 * Routine-level privileges on sheaf's routines in the current database. MySQL deletes them when a
 * routine is dropped, and a file or the test clock that replaces a routine drops it: install()
 * reads them first and grants again what went missing. Needs SELECT on `mysql.procs_priv`.
 */
export const mysqlRoutineGrantsQuery = `select user as user, host as host, routine_name as routine_name,
    routine_type as routine_type, proc_priv as proc_priv
  from mysql.procs_priv where db = database() and routine_name like 'sheaf%' order by 1, 2, 3, 4`;

/**
 * Routines added after one an application may execute, which give it nothing that one does not:
 * an account whose EXECUTE on the first is restored gets the second too (SQL version 6 replaced
 * sheaf_lease_worker and added sheaf_lease_worker_id, a lease of one named free id; version 7 added
 * sheaf_ticket_series, which reads the step and offset of a ticket one may take; version 8 replaced
 * sheaf_alloc_segment and added sheaf_segment_class and sheaf_alloc_segment_class, which read and
 * allocate the segments of a residue class).
 */
const impliedRoutines: Readonly<Record<string, readonly string[]>> = {
  sheaf_lease_worker: ['procedure sheaf_lease_worker_id'],
  sheaf_next_ticket: ['procedure sheaf_ticket_series'],
  sheaf_alloc_segment: ['procedure sheaf_segment_class', 'procedure sheaf_alloc_segment_class'],
};

/** The GRANTs that restore rows of {@link mysqlRoutineGrantsQuery} in the current database. */
export function mysqlRegrants(rows: readonly Record<string, unknown>[]): string[] {
  return rows.flatMap((row) => {
    const privileges = String(row.proc_priv).toLowerCase().split(',');
    const granted = privileges.filter((privilege) => privilege !== 'grant' && privilege !== '');
    if (granted.length === 0) return [];
    const kind = String(row.routine_type).toLowerCase() === 'procedure' ? 'procedure' : 'function';
    const option = privileges.includes('grant') ? ' with grant option' : '';
    const grantee = quoteAccount(String(row.user), String(row.host));
    const routine = mysqlDialect.quoteIdent(String(row.routine_name));
    const implied = granted.includes('execute') ? (impliedRoutines[String(row.routine_name)] ?? []) : [];
    return [
      `grant ${granted.join(', ')} on ${kind} ${routine} to ${grantee}${option}`,
      ...implied.map((each) => `grant execute on ${each} to ${grantee}`),
    ];
  });
}
