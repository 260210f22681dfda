import { SheafError } from '../../errors.js';
import { int8 } from '../shared/id-kind.js';
import { ticketOverlap } from './overlap.js';
import type { ServerSeries } from './source.js';

/** A server's series with its place in the client's list (0-based). */
export interface IndexedSeries extends ServerSeries {
  readonly index: number;
}

/**
 * Why `candidate` may not join the servers already checked (`known`) of a client with `count`
 * servers, or undefined when it may. A step of 1 meets every other series; it gets its own
 * message because it is the servers' default (`auto_increment_increment = 1`), set by nobody.
 */
export function refusalOf(
  name: string,
  candidate: IndexedSeries,
  known: readonly IndexedSeries[],
  count: number,
): SheafError | undefined {
  if (count > 1 && candidate.step === 1) {
    return new SheafError(
      'TICKETS_OVERLAP',
      `ticket '${name}': ${side(candidate)} hands out every value (step 1), so it meets ` +
        `${count > 2 ? `each of the other ${count - 1} servers` : 'the other server'}: give each of the ${count} ` +
        `servers the same step of at least ${count} and an offset of its own`,
      { details: { name, servers: [detailsOf(candidate)], count } },
    );
  }
  for (const other of known) {
    const [a, b] = other.index < candidate.index ? [other, candidate] : [candidate, other];
    const overlap = ticketOverlap(a, b);
    if (overlap === undefined) continue;
    return new SheafError(
      'TICKETS_OVERLAP',
      `ticket '${name}': ${side(a)} and ${side(b)} both hand out ${overlap.first}, then every ${overlap.every}: ` +
        'give each server the same step and an offset of its own',
      {
        details: {
          name,
          servers: [detailsOf(a), detailsOf(b)],
          first: overlap.first.toString(),
          every: overlap.every.toString(),
        },
      },
    );
  }
  return undefined;
}

/**
 * A ticket outside the series its server was checked with: handing it out could repeat another
 * server's ticket. The server's settings changed since the check, or differ between connections
 * (MySQL's auto_increment_increment and auto_increment_offset are per session).
 */
export function outOfSeries(name: string, server: IndexedSeries, id: bigint, settings?: string): SheafError {
  const now = settings === undefined ? '' : ` (the connection it came from has ${settings})`;
  return new SheafError(
    'TICKETS_OVERLAP',
    `ticket '${name}': ${side(server)} handed out ${id}${now}, which is not ${server.offset} + k·${server.step}, ` +
      'the series it was checked with: set the same step and offset on every connection to that server',
    {
      details: {
        name,
        servers: [detailsOf(server)],
        id: id.toString(),
        ...(settings === undefined ? {} : { settings }),
      },
    },
  );
}

/** Whether `id` is `offset + k·step` for some integer k (bigint %: the sign follows the dividend). */
export function inSeries(id: bigint, series: ServerSeries): boolean {
  const step = BigInt(series.step);
  return (((id - BigInt(series.offset)) % step) + step) % step === 0n;
}

/** A step or offset read from a server, as a safe integer of at least 1. */
export function seriesNumber(value: unknown, what: string): number {
  const number = int8(value, what);
  if (number >= 1n && number <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(number);
  throw new SheafError('INVALID_ARGUMENT', `${what} is ${number}: a ticket series needs 1 to 2^53 − 1`, {
    details: { value: number.toString() },
  });
}

function side(server: IndexedSeries): string {
  return `server ${server.index + 1} (${server.where}: ${server.read})`;
}

function detailsOf(server: IndexedSeries): Record<string, unknown> {
  return { index: server.index, where: server.where, read: server.read, step: server.step, offset: server.offset };
}
