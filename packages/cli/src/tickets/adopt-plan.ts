import { SheafError } from '@sheaf/core';
import { describeTarget, type Target, withConnection } from '../connection.js';
import { adoptOn, readSheafTicket, type SheafTicket } from './adopt-sql.js';
import { highestOf } from './classic-bigints.js';
import { readClassic } from './classic-reading.js';
import { checkSeries, type Series } from './classic-series.js';
import type { ClassicReading, ClassicTable } from './classic-types.js';

/** One classic server and the sheaf server that takes its series over. */
export interface AdoptPair {
  readonly from: Target;
  readonly to: Target;
  readonly offset: number;
}

/** What `sheaf tickets adopt` was asked to do. */
export interface AdoptRequest {
  readonly name: string;
  readonly table: ClassicTable;
  readonly step: number;
  /** Tickets each classic server may still hand out after its counter was read. */
  readonly headroom: bigint;
  readonly pairs: readonly AdoptPair[];
  readonly dryRun: boolean;
}

/** A classic server as read, with the series it was checked against and the evidence. */
export interface ClassicReport extends ClassicReading {
  readonly server: string;
  readonly offset: number;
  readonly evidence: readonly string[];
}

/** A sheaf server's ticket after the run. */
export interface TicketReport {
  readonly server: string;
  readonly offset: number;
  readonly firstTicket: bigint;
  readonly action: 'created' | 'unchanged' | 'would create';
  /** Tickets its classic server may still hand out before one reaches `firstTicket`. */
  readonly margin: bigint;
}

export interface AdoptReport {
  readonly name: string;
  readonly step: number;
  readonly headroom: bigint;
  /** The highest ticket any classic server handed out: every sheaf ticket starts above it. */
  readonly above: bigint;
  readonly dryRun: boolean;
  readonly classic: readonly ClassicReport[];
  readonly tickets: readonly TicketReport[];
}

const maxTicket = 9223372036854775807n;

/** The first value of `series` above `above` plus `headroom` tickets, as the adopting routine computes it. */
export function startOf(above: bigint, headroom: bigint, { step, offset }: Series): bigint {
  const [s, o] = [BigInt(step), BigInt(offset)];
  const target = above + headroom * s;
  return target < o ? o : o + s * ((target - o) / s + 1n);
}

/**
 * Reads every classic server and checks its series, then reads every sheaf server and refuses
 * before changing any of them, then adopts on each (unless dry-run). Each sheaf routine checks
 * again: a rerun, or a sheaf server changed meanwhile, is judged by the database itself.
 */
export async function adoptTickets(request: AdoptRequest): Promise<AdoptReport> {
  const { name, step, headroom, pairs } = request;
  const classic: ClassicReport[] = [];
  for (const { from, offset } of pairs) {
    const server = describeTarget(from);
    const reading = await withConnection(from, { create: false }, (db) => readClassic(db, request.table, server));
    classic.push({ ...reading, server, offset, evidence: checkSeries(server, reading, { step, offset }) });
  }
  const above = highestOf(classic.map((reading) => reading.highest));
  const existing: (SheafTicket | undefined)[] = [];
  for (const { to, offset } of pairs) {
    const server = describeTarget(to);
    const start = startOf(above, headroom, { step, offset });
    if (start > maxTicket) {
      throw new SheafError(
        'ID_OUT_OF_RANGE',
        `ticket '${name}' cannot start above ${above} plus ${headroom} tickets of step ${step}: ${start} is past ${maxTicket}`,
        { details: { name, above: above.toString(), headroom: headroom.toString(), step } },
      );
    }
    const ticket = await withConnection(to, { create: false }, (db) => readSheafTicket(db, name, server));
    if (ticket) refuseExisting(name, server, ticket, { step, offset }, above, classic);
    existing.push(ticket);
  }
  const tickets: TicketReport[] = [];
  for (const [index, { to, offset }] of pairs.entries()) {
    const server = describeTarget(to);
    const known = existing[index];
    const done = request.dryRun
      ? { firstTicket: known?.firstTicket ?? startOf(above, headroom, { step, offset }), created: false }
      : await withConnection(to, { create: false }, (db) => adoptOn(db, { name, step, offset, above, headroom }));
    const action = request.dryRun ? (known ? 'unchanged' : 'would create') : done.created ? 'created' : 'unchanged';
    const highest = classic[index]?.highest ?? above;
    tickets.push({
      server,
      offset,
      firstTicket: done.firstTicket,
      action,
      margin: (done.firstTicket - highest - 1n) / BigInt(step),
    });
  }
  return { name, step, headroom, above, dryRun: request.dryRun, classic, tickets };
}

/** NAME_TAKEN for a ticket of another series; TICKETS_OVERLAP for one that does not start above every classic ticket. */
function refuseExisting(
  name: string,
  server: string,
  ticket: SheafTicket,
  series: Series,
  above: bigint,
  classic: readonly ClassicReport[],
): void {
  if (ticket.step !== series.step || ticket.offset !== series.offset) {
    throw new SheafError(
      'NAME_TAKEN',
      `ticket '${name}' already exists on ${server} with step ${ticket.step} and offset ${ticket.offset}, ` +
        `not step ${series.step} and offset ${series.offset}`,
      { details: { name, server, step: ticket.step, offset: ticket.offset } },
    );
  }
  if (ticket.firstTicket > above) return;
  const reached = classic.find((reading) => reading.highest === above);
  throw new SheafError(
    'TICKETS_OVERLAP',
    `ticket '${name}' on ${server} starts at ${ticket.firstTicket}, not above ${above}, the highest ticket ` +
      `${reached?.server ?? 'a classic server'} handed out: tickets of both may be equal. A classic server still ` +
      'handing out tickets after an adoption used up its headroom; a ticket made by create_ticket starts at its offset ' +
      '(docs/tickets-adopt.md, "When adopt refuses")',
    { details: { name, server, firstTicket: ticket.firstTicket.toString(), above: above.toString() } },
  );
}
