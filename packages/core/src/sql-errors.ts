import { SheafError, type SheafErrorCode } from './errors.js';

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
  SH020: 'SEQUENCE_OUT_OF_RANGE',
});

/**
 * Turns a driver error raised by sheaf's SQL into a {@link SheafError} (the driver error becomes its
 * `cause`); returns any other error unchanged. Executors apply it to every query. With the
 * statement's `sql`, PostgreSQL's refusals of a wrong-type argument of a sheaf function (SQLSTATE
 * 22P02, 22003, 42883) become `INVALID_ARGUMENT` too.
 *
 * @example
 * try { await pool.query(sql); } catch (error) { throw fromDatabaseError(error, sql); }
 */
export function fromDatabaseError(error: unknown, sql?: string): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, sqlState, message, errno } = error as {
    code?: unknown;
    sqlState?: unknown;
    message?: unknown;
    errno?: unknown;
  };
  if (typeof message !== 'string') return error;
  const mysql = fromMysqlErrno(errno, sqlState, message, error);
  if (mysql) return mysql;
  const state = typeof sqlState === 'string' ? sqlState : code;
  const sheafCode = typeof state === 'string' ? sqlStates[state] : undefined;
  if (sheafCode === undefined) return fromArgumentError(state, message, error, sql) ?? error;
  return new SheafError(sheafCode, message, { cause: error, details: { sqlState: state } });
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
  return sheafCode && new SheafError(sheafCode, message, { cause, details: { sqlState: state, errno } });
}

/**
 * PostgreSQL refuses an argument it cannot convert or match before sheaf's code runs, so the SQL
 * cannot raise SH002 itself. A conversion error counts only when it points (by `position`, or by the
 * `$n` of a bound parameter) inside the argument list of a `sheaf.` call: a bad value elsewhere in the
 * statement stays the driver's error.
 */
function fromArgumentError(state: unknown, message: string, cause: unknown, sql?: string): SheafError | undefined {
  const details = { sqlState: state };
  if (state === '42883') {
    // Unanchored at the start: knex puts the statement and ' - ' before the server's message.
    const missing = /\bfunction (sheaf\.\w+)\((.*)\) does not exist$/.exec(message);
    if (!missing) return undefined;
    return new SheafError(
      'INVALID_ARGUMENT',
      `no ${missing[1]} takes arguments of types (${missing[2]}); see docs/sql/postgres.md for its arguments`,
      { cause, details: { ...details, function: missing[1], types: missing[2] } },
    );
  }
  if ((state !== '22P02' && state !== '22003') || sql === undefined) return undefined;
  const call = sheafCallAt(sql, offendingOffsets(sql, cause));
  if (!call) return undefined;
  const type = /for type (\w+)/.exec(message)?.[1];
  const max = state === '22003' && type ? integerMax[type] : undefined;
  const limit = max ? ` (${type} arguments are at most ${max})` : '';
  return new SheafError('INVALID_ARGUMENT', `bad argument to ${call}: ${message}${limit}`, {
    cause,
    details: { ...details, function: call },
  });
}

/** The largest value of the integer types sheaf's functions take, for 22003's message. */
const integerMax: Readonly<Record<string, string>> = { integer: '2147483647', bigint: '9223372036854775807' };

/** Where in `sql` the driver says the bad value is: its `position` (1-based), or every `$n` it names. */
function offendingOffsets(sql: string, cause: unknown): number[] {
  const { position, where } = cause as { position?: unknown; where?: unknown };
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
