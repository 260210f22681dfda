import { mysqlDialect } from './dialects/mysql.js';
import { SheafError } from './errors.js';

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
 * leaves it NULL or 0 (column defaults cannot call stored functions there). Most rows take the id
 * from the session's chunk cache right in the trigger, without a function call; the rest call
 * `sheaf_next_id()` (docs/sql/mysql.md). Recommended key: `bigint not null auto_increment primary
 * key`, so the driver's `insertId` of a single-row insert is the sheaf id (for a multi-row insert it
 * is one row's id only: read them back with `insert … returning` on MariaDB or assign them first).
 *
 * @example
 * const { create } = sheafTriggerSql('orders', 'id');
 * await pool.query('create table orders (id bigint not null auto_increment primary key, total int)');
 * await pool.query(create);
 */
export function sheafTriggerSql(table: string, column: string, options: SheafTriggerOptions = {}): SheafTriggerSql {
  for (const [what, value] of [
    ['table', table],
    ['column', column],
    ['trigger name', options.name],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === '' || value.length > 64)) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `${what} ${JSON.stringify(value)} must be a name of 1 to 64 characters`,
        {
          details: { [what]: value },
        },
      );
    }
  }
  const q = mysqlDialect.quoteIdent;
  const name = q(options.name ?? `${table}_sheaf_id`.slice(0, 64));
  const col = `new.${q(column)}`;
  // Per row: one condition and one assignment, no SYSDATE. The chunk counts as valid while the
  // statement started (@@timestamp) before its millisecond ended, so an id's time is never before its
  // statement's start; `:=` inside the expression avoids a SET statement per row.
  const create = [
    `create trigger ${name} before insert on ${q(table)} for each row`,
    'if @sheaf_id_next < @sheaf_id_end and @@timestamp < @sheaf_id_until and @sheaf_id_db = database()',
    `    and coalesce(${col}, 0) = 0 then`,
    `  set ${col} = (@sheaf_id_next := @sheaf_id_next + 1) - 1;`,
    `elseif coalesce(${col}, 0) = 0 then`,
    `  set ${col} = sheaf_next_id();`,
    'end if',
  ].join('\n');
  return { create, drop: `drop trigger if exists ${name}` };
}
