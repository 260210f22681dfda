import type { SqlExecutor } from '../../../executor.js';
import { hasOwnSessions } from '../../../executors/pooled-sessions.js';
import { int8 } from '../../shared/id-kind.js';
import { seriesNumber } from '../refusals.js';
import { placeOf, type TicketSource, ticketSource } from '../source.js';
import { type ClassicTable, classicTableError } from './table.js';

/**
 * The session's step and offset, where it is, and the table's shape, in one row. `p` names the
 * table once: its database (the connection's unless given) and name.
 */
const checkSql = `select @@session.auto_increment_increment as step, @@session.auto_increment_offset as ticket_offset,
    @@version as version, @@hostname as host, @@port as port, p.db as db,
    exists (select 1 from information_schema.tables t where t.table_schema = p.db and t.table_name = p.tbl) as found,
    exists (select 1 from information_schema.columns c where c.table_schema = p.db and c.table_name = p.tbl
      and c.column_name = 'id' and c.extra like '%auto_increment%') as counted,
    exists (select 1 from information_schema.statistics s where s.table_schema = p.db and s.table_name = p.tbl
      and s.non_unique = 0 and s.column_name = 'stub' and s.seq_in_index = 1
      and not exists (select 1 from information_schema.statistics s2 where s2.table_schema = p.db
        and s2.table_name = p.tbl and s2.index_name = s.index_name and s2.seq_in_index = 2)) as stub_unique,
    (select c.character_maximum_length from information_schema.columns c where c.table_schema = p.db
      and c.table_name = p.tbl and c.column_name = 'stub') as stub_length
  from (select coalesce(?, database()) as db, ? as tbl) p`;

/** The ticket, and the session settings it was taken under (to name them if it is off its series). */
const lastIdSql = `select last_insert_id() as id, @@session.auto_increment_increment as step,
  @@session.auto_increment_offset as ticket_offset`;

/** ER_LOCK_DEADLOCK: InnoDB rolled the statement back; it took nothing. */
const deadlock = 1213;

/** How often one ticket's REPLACE is tried again after a deadlock before the server counts as failing. */
const deadlockRetries = 10;

/**
 * Flickr's ticket server on MySQL/MariaDB: `REPLACE INTO t (stub) VALUES (?)` then `SELECT
 * LAST_INSERT_ID()`, both in one session, since LAST_INSERT_ID() is the connection's last
 * AUTO_INCREMENT value. A single connection (not a pool) is one session for every caller, and its
 * driver would interleave two callers' statements, so there draws take turns.
 */
export function classicMysql(executor: SqlExecutor, target: ClassicTable): TicketSource {
  const q = executor.dialect.quoteIdent;
  const table = `${target.schema === undefined ? '' : `${q(target.schema)}.`}${q(target.table)}`;
  const replace = `replace into ${table} (stub) values (?)`;
  const turns = hasOwnSessions(executor) ? undefined : new Turns();
  const draw = () =>
    executor.session(async (session) => {
      await replaceRetrying(session, replace, target.stub);
      const [row] = await session.query<{ id: unknown; step: unknown; ticket_offset: unknown }>(lastIdSql);
      const settings = `auto_increment_increment ${row?.step}, auto_increment_offset ${row?.ticket_offset}`;
      return { id: int8(row?.id, `LAST_INSERT_ID() after ${replace}`), settings };
    });
  return ticketSource({
    kind: 'classic',
    series: () =>
      executor.session(async (session) => {
        const [row] = await session.query<Record<string, unknown>>(checkSql, [target.schema ?? null, target.table]);
        const where = placeOf(row?.db, row?.host, row?.port);
        const problem = classicTableError(target, where, {
          found: truthy(row?.found),
          counted: truthy(row?.counted),
          stubUnique: truthy(row?.stub_unique),
          stubLength: row?.stub_length === null ? undefined : Number(row?.stub_length),
          counter: 'AUTO_INCREMENT',
        });
        if (problem) throw problem;
        const step = seriesNumber(row?.step, `${where}: auto_increment_increment`);
        const given = seriesNumber(row?.ticket_offset, `${where}: auto_increment_offset`);
        const read = `table ${target.table}, auto_increment_increment ${step}, auto_increment_offset ${given}`;
        return { step, offset: effectiveOffset(step, given, String(row?.version)), where, read };
      }),
    draw: () => (turns ? turns.take(draw) : draw()),
  });
}

/**
 * The first value of the series an offset above the step gives. MariaDB keeps the offset's residue
 * (measured on 10.11: increment 4 and offset 6 give 2, 6, 10, …); MySQL documents that it ignores
 * such an offset, which leaves 1. Each ticket is checked against the series all the same.
 */
function effectiveOffset(step: number, offset: number, version: string): number {
  if (offset <= step) return offset;
  return /mariadb/i.test(version) ? ((offset - 1) % step) + 1 : 1;
}

/**
 * InnoDB: concurrent REPLACEs of one stub deadlock now and then (39 of 2,912 with 16 callers,
 * measured on MariaDB 10.11), and the loser's statement is rolled back whole: it is tried again on
 * the same connection. MyISAM and Aria lock the table and never deadlock here.
 */
async function replaceRetrying(session: SqlExecutor, replace: string, stub: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await session.query(replace, [stub]);
      return;
    } catch (error) {
      if ((error as { errno?: unknown } | null)?.errno !== deadlock || attempt >= deadlockRetries) throw error;
    }
  }
}

/** Drivers answer booleans of `exists` as 1/0, strings or bigints. */
function truthy(value: unknown): boolean {
  return value !== null && value !== undefined && Number(value) !== 0;
}

/** Runs one task at a time, in the order given; a failed task does not stop the next. */
class Turns {
  private last: Promise<unknown> = Promise.resolve();

  take<T>(task: () => Promise<T>): Promise<T> {
    const result = this.last.then(task);
    this.last = result.catch(() => undefined);
    return result;
  }
}
