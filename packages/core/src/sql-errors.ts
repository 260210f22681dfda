import { isSheafError, SheafError, type SheafErrorCode } from './errors.js';
import { fromMissingObject, notInstalled } from './not-installed.js';
import { packageFunctionTakes } from './pg-functions.js';
import { fromReadOnly } from './read-only.js';

/**
 * The SQLSTATEs that sheaf's SQL raises (class `SH`), and the SheafError code each one maps to.
 * PostgreSQL raises them with `raise … using errcode`; MySQL with `signal sqlstate`.
 */
export const sqlStates: Readonly<Record<string, SheafErrorCode>> = Object.freeze({
  SH001: 'SHARD_OUT_OF_RANGE',
  SH002: 'INVALID_ARGUMENT',
  SH003: 'TIME_EXHAUSTED',
  SH004: 'TIME_BEFORE_EPOCH',
  SH005: 'LAYOUT_LOCKED',
  SH006: 'UNKNOWN_TICKET',
  SH007: 'UNKNOWN_SEGMENT',
  SH008: 'INVALID_LAYOUT',
  SH009: 'ID_OUT_OF_RANGE',
  SH010: 'NAME_TAKEN',
  SH011: 'SEGMENT_EXHAUSTED',
  SH012: 'WORKERS_EXHAUSTED',
  SH013: 'LEASE_LOST',
  SH014: 'GENERATOR_BUSY',
  SH015: 'SHARD_NOT_OWNED',
  SH016: 'SHARD_TAKEN',
  SH017: 'REGISTRY_ELSEWHERE',
  SH018: 'SEGMENT_CLASS_MISMATCH',
  SH019: 'REPAIR_REFUSED',
  SH020: 'SEQUENCE_OUT_OF_RANGE',
  SH021: 'TICKETS_OVERLAP',
  SH022: 'NATIVE_UNAVAILABLE',
  SH023: 'DATABASE_COPIED',
  SH024: 'STATE_DAMAGED',
  SH025: 'NODE_UNBOUND',
});

/** How deep {@link fromDatabaseError} looks through wrappers: ORM errors nest two or three levels. */
const maxDepth = 8;

/**
 * Turns a driver error raised by sheaf's SQL into a {@link SheafError}; returns any other error
 * unchanged. Executors apply it to every query. It looks through the errors ORMs wrap driver errors
 * in (`cause`, and Prisma's `meta.driverAdapterError`), so a Prisma, Drizzle or Knex error of a
 * query that sheaf's SQL refused converts too, with the ORM's error as `cause`; a SheafError found
 * inside one is returned as it is. Recognised: sheaf's SQLSTATEs (`SHnnn`, MySQL errno 30000 + n);
 * sheaf's objects missing (NOT_INSTALLED: PostgreSQL 3F000 for schema `sheaf`, 42P01 and 42883 for
 * what is in it; MySQL 1305 and 1146 for `sheaf_` routines and tables); with the statement's `sql`
 * (or a wrapper's `query`), PostgreSQL's refusals of a wrong-type argument of a sheaf function
 * (22P02, 22003, 42883) as `INVALID_ARGUMENT`; a write of sheaf's refused by a read-only transaction
 * or a hot standby (25006, MySQL errno 1792) as `READ_ONLY`.
 *
 * @example
 * try {
 *   await prisma.order.create({ data });
 * } catch (error) {
 *   const converted = fromDatabaseError(error);
 *   if (isSheafError(converted, 'NOT_INSTALLED')) console.error(converted.message);
 *   throw converted;
 * }
 */
export function fromDatabaseError(error: unknown, sql?: string): unknown {
  let node = error;
  let statement = sql;
  for (let depth = 0; depth < maxDepth && typeof node === 'object' && node !== null; depth++) {
    if (isSheafError(node)) return node;
    // Prisma's and Drizzle's wrappers name the statement `query`; mysql2's and mariadb's errors `sql`.
    statement ??= stringField(node, 'query') ?? stringField(node, 'sql');
    const converted = fromDriverError(node, error, statement);
    if (converted) return converted;
    node = innerError(node);
  }
  return error;
}

/** The error a wrapper holds: Prisma's driver adapter error (whose `cause` is the driver's), else `cause`. */
function innerError(node: object): unknown {
  const meta = (node as { meta?: { driverAdapterError?: unknown } }).meta;
  return meta?.driverAdapterError ?? (node as { cause?: unknown }).cause;
}

function stringField(node: object, key: string): string | undefined {
  const value = (node as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * One driver error as a SheafError, with `cause` as its cause. Drivers spell the fields their own
 * way: pg and PGlite `code` (the SQLSTATE); mysql2 and mariadb `errno`, `sqlState` and `sqlMessage`
 * (their `message` may wrap it); Prisma's adapters `code` (the errno on MySQL) and `state`.
 */
function fromDriverError(node: object, cause: unknown, sql: string | undefined): SheafError | undefined {
  const { code, sqlState, state, errno } = node as Record<string, unknown>;
  const message = stringField(node, 'sqlMessage') ?? stringField(node, 'message');
  if (message === undefined) return undefined;
  const mysqlErrno = typeof errno === 'number' ? errno : typeof code === 'number' ? code : undefined;
  const mysqlState = typeof sqlState === 'string' ? sqlState : state;
  const mysql = fromMysqlErrno(mysqlErrno, mysqlState, message, cause);
  if (mysql) return mysql;
  const sqlStateOf = typeof sqlState === 'string' ? sqlState : code;
  const sheafCode = typeof sqlStateOf === 'string' ? sqlStates[sqlStateOf] : undefined;
  if (sheafCode !== undefined) {
    return new SheafError(sheafCode, serverMessage(message), { cause, details: { sqlState: sqlStateOf } });
  }
  const stateOfDialect = mysqlErrno === undefined ? sqlStateOf : mysqlState;
  return (
    fromReadOnly(stateOfDialect, mysqlErrno, message, (node as { where?: unknown }).where, sql, cause) ??
    fromMissingObject(stateOfDialect, mysqlErrno, message, cause) ??
    fromArgumentError(sqlStateOf, message, cause, node, sql)
  );
}

/** Knex puts the statement and ' - ' before the server's message; sheaf's starts with 'sheaf: '. */
function serverMessage(message: string): string {
  if (message.startsWith('sheaf: ')) return message;
  const at = message.lastIndexOf(' - sheaf: ');
  return at < 0 ? message : message.slice(at + 3);
}

/** MySQL/MariaDB SIGNALs SQLSTATE 45000 with MYSQL_ERRNO 30000 + n for sheaf's SQLSTATE SHnnn. */
const mysqlErrnoBase = 30000;
/** ER_BINLOG_UNSAFE_ROUTINE: `create function` refused under binary logging. */
const mysqlBinlogUnsafeRoutine = 1418;

function fromMysqlErrno(errno: unknown, sqlState: unknown, message: string, cause: unknown): SheafError | undefined {
  if (typeof errno !== 'number') return undefined;
  if (errno === mysqlBinlogUnsafeRoutine) {
    return new SheafError(
      'SERVER_CONFIG',
      `${message} — sheaf's functions write data and read the clock: set global log_bin_trust_function_creators = 1`,
      { cause, details: { errno, setting: 'log_bin_trust_function_creators' } },
    );
  }
  if (sqlState !== '45000' || errno <= mysqlErrnoBase || errno >= mysqlErrnoBase + 1000) return undefined;
  const state = `SH${String(errno - mysqlErrnoBase).padStart(3, '0')}`;
  const sheafCode = sqlStates[state];
  return sheafCode && new SheafError(sheafCode, serverMessage(message), { cause, details: { sqlState: state, errno } });
}

/**
 * PostgreSQL refuses an argument it cannot convert or match before sheaf's code runs, so the SQL
 * cannot raise SH002 itself. A conversion error counts only when it points (by `position`, or by the
 * `$n` of a bound parameter) inside the argument list of a `sheaf.` call: a bad value elsewhere in the
 * statement stays the driver's error. A call no function matches (42883) whose argument types one of
 * the package's functions takes is a function missing from the database: NOT_INSTALLED.
 */
function fromArgumentError(
  state: unknown,
  message: string,
  cause: unknown,
  node: object,
  sql?: string,
): SheafError | undefined {
  const details = { sqlState: state };
  if (state === '42883') {
    // Unanchored at the start: knex puts the statement and ' - ' before the server's message.
    const missing = /\bfunction (sheaf\.(\w+))\((.*)\) does not exist$/.exec(message);
    if (!missing) return undefined;
    const [text, name, bare, types] = missing as unknown as [string, string, string, string];
    if (packageFunctionTakes(bare, types === '' ? [] : types.split(/,\s*/))) {
      return notInstalled(undefined, text.slice(text.indexOf('function ')), { ...details, object: name }, cause);
    }
    return new SheafError(
      'INVALID_ARGUMENT',
      `no ${name} takes arguments of types (${types}); see docs/sql/postgres.md for its arguments`,
      { cause, details: { ...details, function: name, types } },
    );
  }
  if ((state !== '22P02' && state !== '22003') || sql === undefined) return undefined;
  const call = sheafCallAt(sql, offendingOffsets(sql, node));
  if (!call) return undefined;
  const type = /for type (\w+)/.exec(message)?.[1];
  const max = state === '22003' && type ? integerMax[type] : undefined;
  const limit = max ? ` (${type} arguments are at most ${max})` : '';
  return new SheafError('INVALID_ARGUMENT', `bad argument to ${call}: ${serverMessage(message)}${limit}`, {
    cause,
    details: { ...details, function: call },
  });
}

/** The largest value of the integer types sheaf's functions take, for 22003's message. */
const integerMax: Readonly<Record<string, string>> = { integer: '2147483647', bigint: '9223372036854775807' };

/** Where in `sql` the driver says the bad value is: its `position` (1-based), or every `$n` it names. */
function offendingOffsets(sql: string, node: object): number[] {
  const { position, where } = node as { position?: unknown; where?: unknown };
  if (typeof position === 'string' || typeof position === 'number') return [Number(position) - 1];
  const parameter = typeof where === 'string' ? /parameter \$(\d+)/.exec(where) : null;
  if (!parameter) return [];
  return [...sql.matchAll(new RegExp(`\\$${parameter[1]}(?!\\d)`, 'g'))].map((match) => match.index);
}

/** The innermost `sheaf.name(…)` call whose argument list holds one of `offsets`. */
function sheafCallAt(sql: string, offsets: readonly number[]): string | undefined {
  let found: { name: string; open: number } | undefined;
  for (const match of sql.matchAll(/\bsheaf\s*\.\s*(\w+)\s*\(/gi)) {
    const open = match.index + match[0].length - 1;
    const close = closingParen(sql, open);
    if (offsets.some((at) => at > open && at < close) && (!found || open > found.open)) {
      found = { name: `sheaf.${match[1]}`, open };
    }
  }
  return found?.name;
}

/** The index of the `)` matching the `(` at `open`, skipping quoted text; the end of `sql` if none. */
function closingParen(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    const char = sql[i];
    if (char === "'" || char === '"') {
      const end = sql.indexOf(char, i + 1);
      if (end < 0) break;
      i = end;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return sql.length;
}

/** `promise.catch((error) => rethrow(error, sql))`: rejects with the error translated by {@link fromDatabaseError}. */
export function rethrow(error: unknown, sql?: string): never {
  throw fromDatabaseError(error, sql);
}
