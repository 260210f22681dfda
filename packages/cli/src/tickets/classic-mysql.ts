import { SheafError, type SqlExecutor } from '@sheaf/core';
import { bigintOf, highestOf } from './classic-bigints.js';
import type { ClassicReading, ClassicTable } from './classic-types.js';

/** The table's engine and counter, whether the column takes AUTO_INCREMENT values, and the server's series. */
const shapeSql = `select t.table_name as table_name, t.engine as engine, cast(t.auto_increment as char) as auto_increment,
    (select c.extra like '%auto_increment%' from information_schema.columns c
      where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = ?) as counted,
    @@global.auto_increment_increment as step, @@global.auto_increment_offset as ticket_offset,
    @@version as version
  from information_schema.tables t where t.table_schema = database() and t.table_name = ?`;

/** ER_UNKNOWN_SYSTEM_VARIABLE: MariaDB has no information_schema_stats_expiry. */
const unknownVariable = 1193;

/**
 * Flickr's table on MySQL/MariaDB. The counter is the truth: REPLACE deletes the row it replaces,
 * so max(id) can be below a ticket handed out, while AUTO_INCREMENT never goes back (MyISAM and
 * Aria keep last + 1, InnoDB the next value of the series). Only the server-wide
 * auto_increment_increment/offset can be read: values set per session are invisible here, which is
 * why the rows' ids are checked against the series too.
 */
export async function readClassicMysql(
  executor: SqlExecutor,
  { table, column }: ClassicTable,
  server: string,
): Promise<ClassicReading> {
  return executor.session(async (session) => {
    // MySQL 8 answers information_schema.tables from statistics cached for up to a day.
    await session.query('set session information_schema_stats_expiry = 0').catch((error: unknown) => {
      if ((error as { errno?: unknown } | null)?.errno !== unknownVariable) throw error;
    });
    const [row] = await session.query<Record<string, unknown>>(shapeSql, [column, table]);
    if (!row) {
      throw new SheafError('UNKNOWN_TABLE', `no ticket table ${table} in ${server}`, { details: { table, server } });
    }
    if (Number(row.counted ?? 0) !== 1) {
      throw new SheafError(
        'UNSUPPORTED_KEY',
        `ticket table ${table} in ${server}: column ${column} ${row.counted === null ? 'does not exist' : 'takes no AUTO_INCREMENT values'}`,
        { details: { table, column, server } },
      );
    }
    const q = session.dialect.quoteIdent;
    const [max] = await session.query<{ max_id: unknown }>(
      `select cast(max(${q(column)}) as char) as max_id from ${q(String(row.table_name))}`,
    );
    const counterValue = bigintOf(row.auto_increment);
    const maxId = bigintOf(max?.max_id);
    const step = Number(row.step);
    return {
      table: String(row.table_name),
      counter: String(row.engine),
      counterValue,
      maxId,
      highest: highestOf([counterValue === undefined ? undefined : counterValue - 1n, maxId]),
      handedOut: maxId === undefined ? [] : [{ what: `max(${column})`, value: maxId }],
      configured:
        step > 1
          ? {
              step,
              offset: effectiveOffset(step, Number(row.ticket_offset), String(row.version)),
              source: `the server's auto_increment_increment ${step} and auto_increment_offset ${row.ticket_offset}`,
            }
          : undefined,
    };
  });
}

/**
 * The offset an auto_increment_offset above the increment gives: MariaDB keeps its residue
 * (increment 4, offset 6 hand out 2, 6, 10, …); MySQL documents that it ignores it, which leaves 1.
 */
function effectiveOffset(step: number, offset: number, version: string): number {
  if (offset <= step) return offset;
  return /mariadb/i.test(version) ? ((offset - 1) % step) + 1 : 1;
}
