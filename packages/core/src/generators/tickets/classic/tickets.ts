import { SheafError } from '../../../errors.js';
import type { SqlExecutor } from '../../../executor.js';
import { type Database, executorOf } from '../../../executors/executor-of.js';
import { detailValue, formatArgument, typeName } from '../../../format.js';
import { type DialectSql, sqlFor } from '../../shared/dialect-sql.js';
import { optionsObject } from '../../shared/options.js';
import type { TicketSource } from '../source.js';
import { classicMysql } from './mysql.js';
import { classicPostgres } from './postgres.js';
import type { ClassicTable } from './table.js';

/**
 * What {@link classicTickets} takes. The table is Flickr's: `id` takes the server's values
 * (AUTO_INCREMENT; on PostgreSQL a serial or identity column), `stub` has a unique key of its own.
 *
 * @example
 * const options: ClassicTicketsOptions = { table: 'Tickets64', stub: 'a' };
 */
export interface ClassicTicketsOptions {
  /** The ticket table (default `Tickets64`), taken literally: quoted, never parsed. */
  readonly table?: string;
  /** Its database (MySQL) or schema (PostgreSQL); default: the connection's (search path on PostgreSQL). */
  readonly schema?: string;
  /** The stub row every ticket replaces (default `'a'`); one table can serve several stubs. */
  readonly stub?: string;
}

/** How each dialect draws classic tickets. */
const classicSources: DialectSql<(executor: SqlExecutor, table: ClassicTable) => TicketSource> = {
  mysql: classicMysql,
  postgres: classicPostgres,
};

/**
 * A Flickr-classic ticket server for {@link TicketClient}: a table as Flickr's ticket servers have
 * it, read the Flickr way. MySQL/MariaDB: `REPLACE INTO Tickets64 (stub) VALUES ('a')` then `SELECT
 * LAST_INSERT_ID()` on the same connection (a pool's session pins one: LAST_INSERT_ID() is per
 * connection), stepped by the session's `auto_increment_increment` and `auto_increment_offset`.
 * PostgreSQL: `insert … on conflict (stub) do update set id = excluded.id returning id`, stepped by
 * the id sequence's increment and start. Mix them with databases running sheaf's tickets; the client
 * refuses servers whose series meet.
 *
 * @example
 * const pool = mysql.createPool({ uri, connectionLimit: 8 });
 * pool.on('connection', (c) => c.query('set session auto_increment_increment = 2, auto_increment_offset = 1'));
 * const tickets = new TicketClient([classicTickets(pool), classicTickets(otherPool)], { name: 'Tickets64' });
 */
export function classicTickets(db: Database, options?: ClassicTicketsOptions): TicketSource {
  const executor = executorOf(db, 'classicTickets');
  const given = optionsObject('classicTickets', options);
  const rule = sqlFor(executor, nameRules, 'classicTickets');
  const table: ClassicTable = {
    table: tableName(rule, 'table', given.table ?? 'Tickets64'),
    schema: given.schema === undefined ? undefined : tableName(rule, 'schema', given.schema),
    stub: stubOf(given.stub),
  };
  return sqlFor(executor, classicSources, 'classicTickets')(executor, table);
}

/** What is wrong with a name for each server, if anything: longer names are cut or refused. */
const nameRules: DialectSql<(name: string) => string | undefined> = {
  // PostgreSQL cuts a name at 63 bytes, and the cut name is another table's.
  postgres: (name) => {
    const bytes = new TextEncoder().encode(name).length;
    return bytes > 63 ? `has ${bytes} bytes: PostgreSQL names have at most 63` : undefined;
  },
  mysql: (name) => {
    const length = [...name].length;
    if (length > 64) return `has ${length} characters: MySQL names have at most 64`;
    if (name.endsWith(' ')) return 'ends with a space, which MySQL does not allow in a name';
    // MySQL identifiers are in the Basic Multilingual Plane (utf8mb3).
    if ([...name].some((char) => char.codePointAt(0)! > 0xffff)) return 'holds a character above U+FFFF';
    return undefined;
  },
};

/** `value` if the server takes it as a name as it is; quoting makes any such text safe in SQL. */
function tableName(rule: (name: string) => string | undefined, what: string, value: unknown): string {
  let problem: string | undefined;
  if (typeof value !== 'string') problem = 'is not text';
  else if (value === '') problem = 'is empty';
  else if (value.includes('\0')) problem = 'holds a NUL character, which no server allows in a name';
  else problem = rule(value);
  if (problem === undefined) return value as string;
  throw new SheafError('INVALID_ARGUMENT', `classicTickets: ${what} ${formatArgument(value)} ${problem}`, {
    details: { option: what, value: detailValue(value), type: typeName(value) },
  });
}

function stubOf(value: unknown): string {
  if (value === undefined) return 'a';
  if (typeof value === 'string' && value.length <= 255) return value;
  throw new SheafError(
    'INVALID_ARGUMENT',
    `classicTickets: stub ${formatArgument(value)} is not text of at most 255 characters`,
    {
      details: { option: 'stub', value: detailValue(value), type: typeName(value) },
    },
  );
}
