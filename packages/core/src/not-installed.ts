import { SheafError } from './errors.js';

/**
 * NOT_INSTALLED for a database that lacks sheaf's objects: named when known (MySQL's messages and
 * `requireInstalled` name it; PostgreSQL's do not), with what was missing in the server's words.
 *
 * @example
 * notInstalled('app', 'FUNCTION app.sheaf_next_id does not exist', { errno: 1305 });
 */
export function notInstalled(
  database: string | undefined,
  missing: string,
  details: Record<string, unknown>,
  cause?: unknown,
): SheafError {
  const where = database ? `database ${database}` : 'this database';
  return new SheafError('NOT_INSTALLED', `sheaf is not installed in ${where} (${missing}); run \`sheaf install\``, {
    cause,
    details: { ...details, ...(database ? { database } : {}) },
  });
}

/** MySQL: a routine or table whose name is sheaf's (the `sheaf_` prefix is reserved for it). */
const mysqlMissing: Readonly<Record<number, RegExp>> = {
  // ER_SP_DOES_NOT_EXIST; SAVEPOINTs share the errno, hence FUNCTION|PROCEDURE.
  1305: /\b(?:FUNCTION|PROCEDURE) (?:`?(\w+)`?\.)?`?(sheaf_\w+)`? does not exist/,
  // ER_NO_SUCH_TABLE
  1146: /\bTable '(?:(\w+)\.)?(sheaf_\w+)' doesn't exist/,
};

/**
 * What lives only in `sheaf_<database>` since MySQL SQL version 12 (tables, helpers) and 13 (what
 * only admins call): asked for in the application's database, it is there, not missing.
 */
const stateOnly =
  /^sheaf_(settings|chunks|tickets|ticket_counter|segments|workers|logical_shards|schema_versions|migrations|configure|add_shard|create_ticket|adopt_ticket|create_segment|create_segment_class|claim_shard|release_shard|repair_counter|_\w+)$/;

/** PostgreSQL: the schema `sheaf` (3F000), or a relation in it (42P01). */
const pgMissing: Readonly<Record<string, RegExp>> = {
  '3F000': /\bschema "sheaf" does not exist/,
  '42P01': /\brelation "(sheaf\.\w+)" does not exist/,
};

/**
 * The NOT_INSTALLED error for a driver error that says one of sheaf's objects does not exist;
 * undefined for any other error. Function calls PostgreSQL cannot match (42883) are judged by
 * `sql-errors.ts`, which tells a missing function from a call with wrong argument types.
 */
export function fromMissingObject(
  state: unknown,
  errno: unknown,
  message: string,
  cause: unknown,
): SheafError | undefined {
  const mysql = typeof errno === 'number' ? mysqlMissing[errno]?.exec(message) : undefined;
  if (mysql && mysql[1] !== undefined && stateOnly.test(mysql[2] as string)) {
    const home = `sheaf_${mysql[1]}`;
    return new SheafError(
      'NOT_INSTALLED',
      `${mysql[1]}.${mysql[2]} does not exist: sheaf keeps it in database ${home}, where only sheaf's owner ` +
        `reaches it (MySQL SQL version 12 on; admin routines 13 on): use \`${home}\`.${mysql[2]}, or run \`sheaf install\` ` +
        'if sheaf is not installed yet',
      { cause, details: { errno, sqlState: state, object: mysql[2], database: mysql[1], state: home } },
    );
  }
  if (mysql) {
    return notInstalled(mysql[1], mysql[0], { errno, sqlState: state, object: mysql[2] }, cause);
  }
  const pg = typeof state === 'string' ? pgMissing[state]?.exec(message) : undefined;
  if (pg) return notInstalled(undefined, pg[0], { sqlState: state, object: pg[1] ?? 'sheaf' }, cause);
  return undefined;
}
