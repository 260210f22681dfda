import { mysqlDialect } from './dialects/mysql.js';
import { SheafError } from './errors.js';
import { detailValue, formatArgument, typeName } from './format.js';

/**
 * What {@link sheafTriggerSql} takes.
 *
 * @example
 * const options: SheafTriggerOptions = { name: 'orders_id' };
 */
export interface SheafTriggerOptions {
  /** The trigger's name; default `<table>_sheaf_id`. */
  readonly name?: string;
}

/**
 * The DDL of a sheaf trigger and of its removal.
 *
 * @example
 * const { create, drop }: SheafTriggerSql = sheafTriggerSql('orders', 'id');
 */
export interface SheafTriggerSql {
  readonly create: string;
  readonly drop: string;
}

/**
 * Renders the MySQL/MariaDB `BEFORE INSERT` trigger that gives `column` a sheaf id when an insert
 * leaves it NULL or 0 (column defaults cannot call stored functions there). The first row of each
 * statement calls `sheaf_next_id()`, which checks the session's chunk cache; later rows of the
 * statement take ids from it right in the trigger, without a function call (docs/sql/mysql.md).
 * Triggers rendered before SQL version 5 (mysql) trust the cache without that check: re-create
 * them. Recommended key: `bigint not null auto_increment primary key`, so the driver's `insertId`
 * of a single-row insert is the sheaf id (for a multi-row insert it is one row's id only: read them
 * back with `insert … returning` on MariaDB or assign them first).
 *
 * @example
 * const { create } = sheafTriggerSql('orders', 'id');
 * await pool.query('create table orders (id bigint not null auto_increment primary key, total int)');
 * await pool.query(create);
 */
export function sheafTriggerSql(table: string, column: string, options: SheafTriggerOptions = {}): SheafTriggerSql {
  if (typeof options !== 'object' || options === null) {
    throw new SheafError('INVALID_ARGUMENT', `trigger options ${formatArgument(options)} are not an object { name? }`, {
      details: { type: typeName(options) },
    });
  }
  checkName('table', table);
  checkName('column', column);
  if (options.name !== undefined) checkName('trigger name', options.name);
  const q = mysqlDialect.quoteIdent;
  const name = q(options.name ?? `${table}_sheaf_id`.slice(0, 64));
  const col = `new.${q(column)}`;
  // Per row: one condition and one assignment, no SYSDATE, no table read. The session's chunk is
  // taken only in the statement (@@timestamp) whose sheaf_next_id() call checked it against the
  // settings row and the clock, so what an earlier statement left in the variables is checked
  // first; `:=` inside the expression avoids a SET statement per row.
  const create = [
    `create trigger ${name} before insert on ${q(table)} for each row`,
    'if @sheaf_id_stmt = @@timestamp and @sheaf_id_next < @sheaf_id_end and @sheaf_id_db = database()',
    `    and coalesce(${col}, 0) = 0 then`,
    `  set ${col} = (@sheaf_id_next := @sheaf_id_next + 1) - 1;`,
    `elseif coalesce(${col}, 0) = 0 then`,
    `  set ${col} = sheaf_next_id();`,
    'end if',
  ].join('\n');
  return { create, drop: `drop trigger if exists ${name}` };
}

/** MySQL identifiers are 1 to 64 characters. */
function checkName(what: string, value: unknown): void {
  if (typeof value === 'string' && value !== '' && value.length <= 64) return;
  throw new SheafError('INVALID_ARGUMENT', `${what} ${formatArgument(value)} must be a name of 1 to 64 characters`, {
    details: { [what]: detailValue(value), type: typeName(value) },
  });
}
