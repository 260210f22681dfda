import { type DialectName, inState, SheafError, type SqlExecutor } from '@sheaf/core';
import { bigintOf } from './classic-bigints.js';

interface AdoptSql {
  /** One row: whether the database has the adopting routine (the adopt_ticket SQL file). */
  readonly present: string;
  /** The ticket's step, offset and lowest value, or no row. */
  readonly existing: string;
  /** One row (first_ticket, created). */
  readonly adopt: string;
  readonly routine: string;
}

// Parallel in shape per dialect. MySQL names of sheaf_create_ticket's tickets have no first_ticket:
// their lowest value is at least the offset, which is what the check needs.
const adoptSql: Record<DialectName, AdoptSql> = {
  postgres: {
    present:
      "select to_regprocedure('sheaf.adopt_ticket(text, integer, integer, bigint, bigint)') is not null as present",
    existing: `select t.step, t."offset" as ticket_offset, s.seqstart::text as first_ticket
      from sheaf.tickets t join pg_catalog.pg_sequence s on s.seqrelid = t.sequence where t.name = $1`,
    adopt: 'select first_ticket::text as first_ticket, created from sheaf.adopt_ticket($1, $2, $3, $4, $5)',
    routine: 'sheaf.adopt_ticket()',
  },
  mysql: {
    present: `select count(*) > 0 as present from information_schema.routines
      where routine_schema = {state_text} and routine_name = 'sheaf_adopt_ticket'`,
    existing: `select step, ticket_offset, cast(coalesce(first_ticket, ticket_offset) as char) as first_ticket
      from {state}.sheaf_tickets where name = ?`,
    adopt: 'call {state}.sheaf_adopt_ticket(?, ?, ?, ?, ?)',
    routine: 'sheaf_adopt_ticket()',
  },
};

/** A ticket as a sheaf server has it: its series and its lowest value. */
export interface SheafTicket {
  readonly step: number;
  readonly offset: number;
  readonly firstTicket: bigint;
}

/**
 * The ticket `name` on a sheaf server, or undefined where it has none. NOT_INSTALLED, naming the
 * server, where sheaf is missing or older than ticket adoption.
 */
export async function readSheafTicket(
  executor: SqlExecutor,
  name: string,
  server: string,
): Promise<SheafTicket | undefined> {
  const sql = await inState(executor, adoptSql[executor.dialect.name]);
  const [probe] = await executor.query<{ present: unknown }>(sql.present);
  if (!truthy(probe?.present)) {
    throw new SheafError(
      'NOT_INSTALLED',
      `${server} has no ${sql.routine}: install or upgrade sheaf there first (sheaf install)`,
      { details: { server, object: sql.routine } },
    );
  }
  const [row] = await executor.query<Record<string, unknown>>(sql.existing, [name]);
  if (!row) return undefined;
  return { step: Number(row.step), offset: Number(row.ticket_offset), firstTicket: bigintOf(row.first_ticket) ?? 0n };
}

/** What the adopting routine did: the ticket's lowest value, and whether this call created it. */
export interface Adopted {
  readonly firstTicket: bigint;
  readonly created: boolean;
}

/** Runs the adopting routine; its refusals arrive as SheafErrors (TICKETS_OVERLAP, NAME_TAKEN, …). */
export async function adoptOn(
  executor: SqlExecutor,
  request: { name: string; step: number; offset: number; above: bigint; headroom: bigint },
): Promise<Adopted> {
  const { name, step, offset, above, headroom } = request;
  const [row] = await executor.query<{ first_ticket: unknown; created: unknown }>(
    (await inState(executor, adoptSql[executor.dialect.name])).adopt,
    [name, step, offset, above.toString(), headroom.toString()],
  );
  return { firstTicket: bigintOf(row?.first_ticket) ?? 0n, created: truthy(row?.created) };
}

/** Drivers answer booleans as true/false, 1/0 or '1'/'0'. */
function truthy(value: unknown): boolean {
  return value === true || (value !== null && value !== undefined && value !== false && Number(value) === 1);
}
