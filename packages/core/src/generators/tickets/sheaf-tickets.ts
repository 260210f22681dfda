import type { SqlExecutor } from '../../executor.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import { int8 } from '../shared/id-kind.js';
import { seriesNumber } from './refusals.js';
import { serverPlace, type TicketSource, ticketSource } from './source.js';

/** sheaf's ticket functions per dialect: the next ticket `(id)`, and a ticket's `(step, ticket_offset)`. */
const sheafTicketSql: DialectSql<{ readonly next: string; readonly series: string }> = {
  postgres: {
    next: 'select sheaf.next_ticket($1)::text as id',
    series: 'select s.step, s."offset" as ticket_offset from sheaf.ticket_series($1) s',
  },
  mysql: {
    next: 'select sheaf_next_ticket(?) as id',
    series: 'call sheaf_ticket_series(?)',
  },
};

/**
 * A database with sheaf installed as a ticket server: tickets from `sheaf.next_ticket(name)`, the
 * series from `sheaf.ticket_series(name)` (what `sheaf.create_ticket(name, step, offset)` recorded).
 */
export function sheafTickets(executor: SqlExecutor): TicketSource {
  const sql = sqlFor(executor, sheafTicketSql, 'TicketClient');
  return ticketSource({
    kind: 'sheaf',
    async series(name) {
      const [row] = await executor.query<{ step: unknown; ticket_offset: unknown }>(sql.series, [name]);
      const step = seriesNumber(row?.step, `ticket '${name}': step`);
      const offset = seriesNumber(row?.ticket_offset, `ticket '${name}': offset`);
      const where = await serverPlace(executor);
      return { step, offset, where, read: `sheaf ticket '${name}', step ${step}, offset ${offset}` };
    },
    async draw(name) {
      const [row] = await executor.query<{ id: unknown }>(sql.next, [name]);
      return { id: int8(row?.id, 'ticket') };
    },
  });
}
