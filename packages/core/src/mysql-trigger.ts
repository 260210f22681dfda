import { mysqlDialect } from './dialects/mysql.js';
import { SheafError } from './errors.js';
import { detailValue, formatArgument, typeName } from './format.js';
import { mysqlState } from './install/mysql-state.js';
import type { Layout } from './layout.js';
import { layoutOrPreset, type PresetName } from './presets.js';

/**
 * What {@link sheafTriggerSql} takes.
 *
 * @example
 * const options: SheafTriggerOptions = { name: 'orders_id' };
 */
export interface SheafTriggerOptions {
  /** The trigger's name; default `<table>_sheaf_id`. */
  readonly name?: string;
  /**
   * The layout the database was installed with (default `sheaf`): explicit ids above its largest id
   * are refused. Needed for layouts whose ids stop below 2^63 − 1 (`js53`, custom ones).
   */
  readonly layout?: Layout | PresetName;
  /**
   * The database the trigger is for: its slow path then calls sheaf's own function in
   * `sheaf_<database>` rather than the forward `sheaf_next_id()` of the application's database,
   * which an account owning that database could replace by a routine of its own, run with the
   * trigger definer's rights (docs/security.md). Leave it out only for SQL meant for databases of
   * other names.
   */
  readonly database?: string;
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
 * leaves it NULL or 0 (column defaults cannot call stored functions there), and refuses an explicit id
 * below 0 or above the layout's largest with `ID_OUT_OF_RANGE` (errno 30009). 0 stays "assign one": on
 * an AUTO_INCREMENT or `default 0` column the trigger reads 0 for an id left out too, in every
 * sql_mode (docs/errors.md, Explicit ids). The first row of each
 * statement calls `sheaf_next_id()`, which checks the session's chunk cache; later rows of the
 * statement take ids from it right in the trigger, without a function call (docs/sql/mysql.md).
 * Triggers rendered before SQL version 5 (mysql) trust the cache without that check: re-create
 * them. Recommended key: `bigint not null auto_increment primary key`, so the driver's `insertId`
 * of a single-row insert is the sheaf id (for a multi-row insert it is one row's id only: read them
 * back with `insert … returning` on MariaDB or assign them first).
 *
 * @example
 * const { create } = sheafTriggerSql('orders', 'id', { database: 'shop' });
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
  const layout = layoutOrPreset(options.layout);
  const nextId =
    options.database === undefined ? 'sheaf_next_id()' : `${mysqlState(options.database).stateSql}.sheaf_next_id()`;
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
    `  set ${col} = ${nextId};`,
    ...refuseOutOfRange(col, layout),
    'end if',
  ].join('\n');
  return { create, drop: `drop trigger if exists ${name}` };
}

/**
 * The explicit-id branch: a comparison with constants of the layout (no table read, no call per row)
 * and, only when it fails, checkExplicitId's message. SIGNAL takes a variable, not an expression, and
 * MESSAGE_TEXT holds 128 characters.
 */
function refuseOutOfRange(col: string, layout: Layout): string[] {
  const after = `is outside layout ${JSON.stringify(layout.name)} (1 to ${layout.maxId})`;
  return [
    `elseif ${col} < 0 or ${col} > ${layout.maxId} then`,
    '  begin',
    `    declare v_message varchar(128) default left(concat('sheaf: explicit id ', ${col}, ' ', ${sqlText(after)}), 128);`,
    `    signal sqlstate '45000' set message_text = v_message, mysql_errno = ${idOutOfRangeErrno};`,
    '  end;',
  ];
}

/** SH009 (ID_OUT_OF_RANGE) in sheaf's MySQL convention: MYSQL_ERRNO 30000 + n (sql-errors.ts). */
const idOutOfRangeErrno = 30009;

/** A string literal that reads the same with and without NO_BACKSLASH_ESCAPES (at worst a doubled `\`). */
const sqlText = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** MySQL identifiers are 1 to 64 characters. */
function checkName(what: string, value: unknown): void {
  if (typeof value === 'string' && value !== '' && value.length <= 64) return;
  throw new SheafError('INVALID_ARGUMENT', `${what} ${formatArgument(value)} must be a name of 1 to 64 characters`, {
    details: { [what]: detailValue(value), type: typeName(value) },
  });
}
