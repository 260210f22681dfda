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
  SH020: 'SEQUENCE_OUT_OF_RANGE',
});

/**
 * Turns a driver error raised by sheaf's SQL into a {@link SheafError} (the driver error becomes its
 * `cause`); returns any other error unchanged. Executors apply it to every query.
 *
 * @example
 * try { await pool.query('select sheaf.next_id(9999)'); } catch (error) { throw fromDatabaseError(error); }
 */
export function fromDatabaseError(error: unknown): unknown {
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
  if (sheafCode === undefined) return error;
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

/** `promise.catch(rethrow)`: rejects with the error translated by {@link fromDatabaseError}. */
export function rethrow(error: unknown): never {
  throw fromDatabaseError(error);
}
