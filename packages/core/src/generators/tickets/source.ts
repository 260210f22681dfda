import type { SqlExecutor } from '../../executor.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import type { TicketSeries } from './overlap.js';

/** A server's series as read from it, with what {@link TicketClient} says about it in errors. */
export interface ServerSeries extends TicketSeries {
  readonly step: number;
  /** The first value the server may hand out: `offset + k·step` for k = 0, 1, 2, … */
  readonly offset: number;
  /** Where the server is: `shop on db1:3306`. */
  readonly where: string;
  /** What was read, in the server's own terms: `table Tickets64, auto_increment_increment 2, …`. */
  readonly read: string;
}

/** One ticket as a server handed it out. */
export interface DrawnTicket {
  readonly id: bigint;
  /** The settings it was drawn under, where a connection has its own (MySQL's session variables). */
  readonly settings?: string;
}

/**
 * A ticket server of a {@link TicketClient}: sheaf's ticket functions on a database given as it is,
 * or a Flickr-classic table from {@link classicTickets}. The client reads every server's series
 * before it takes tickets from it, to refuse servers that would hand out one value twice.
 *
 * @example
 * const servers: (Database | TicketSource)[] = [classicTickets(poolA), classicTickets(poolB)];
 */
export interface TicketSource {
  /** `'sheaf'` for `sheaf.next_ticket(name)`, `'classic'` for Flickr's `REPLACE INTO`. */
  readonly kind: 'sheaf' | 'classic';
  /** Reads the step and offset the server hands out for ticket `name`. */
  series(name: string): Promise<ServerSeries>;
  /** Takes the next ticket `name` from the server. */
  draw(name: string): Promise<DrawnTicket>;
}

// Symbol.for: a source made by another copy of the package is still recognised, where a class and
// `instanceof` would not be.
const brand = Symbol.for('sheaf.ticketSource');

/** `source`, marked as one: the client tells it from a database by the mark, not by its shape. */
export function ticketSource<T extends TicketSource>(source: T): T {
  Object.defineProperty(source, brand, { value: true });
  return source;
}

/** Whether `value` was made by {@link ticketSource}. */
export function isTicketSource(value: unknown): value is TicketSource {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

const placeSql: DialectSql<string> = {
  postgres: 'select current_database() as db, host(inet_server_addr()) as host, inet_server_port() as port',
  mysql: 'select database() as db, @@hostname as host, @@port as port',
};

/** Where `session` is connected, for messages: `shop on db1:3306`, or the database alone. */
export async function serverPlace(session: SqlExecutor): Promise<string> {
  const sql = sqlFor(session, placeSql, 'TicketClient');
  const [row] = await session.query<{ db: unknown; host: unknown; port: unknown }>(sql);
  return placeOf(row?.db, row?.host, row?.port);
}

/** `db on host:port`, leaving out what the server did not say (a Unix socket has no address). */
export function placeOf(db: unknown, host: unknown, port: unknown): string {
  const name = db === null || db === undefined ? '(no database)' : String(db);
  if (host === null || host === undefined || host === '') return name;
  return `${name} on ${String(host)}${port === null || port === undefined ? '' : `:${String(port)}`}`;
}
