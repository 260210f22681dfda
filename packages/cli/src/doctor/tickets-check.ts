import { type TicketOverlap, type TicketSeries, ticketOverlap } from '@sheaf/core';
import { type Check, check } from './check.js';
import { type Member, readingOf } from './fleet.js';
import { grouped, listed } from './format.js';

interface Server extends TicketSeries {
  readonly database: string;
}

interface Meeting {
  readonly a: Server;
  readonly b: Server;
  readonly overlap: TicketOverlap;
}

/**
 * One check per ticket name found on two databases or more: Flickr-style servers of one ticket
 * share its numbers only while no two of them ever hand out one value. Different steps are fine
 * as long as they never meet (step 4 at offsets 2 and 4 splits a step-2 server at offset 2).
 */
export function ticketsChecks(members: readonly Member[]): Check[] {
  const byName = new Map<string, Server[]>();
  for (const member of members) {
    for (const { name, step, offset } of readingOf(member)?.tickets ?? []) {
      byName.set(name, [...(byName.get(name) ?? []), { database: member.label, step, offset }]);
    }
  }
  return [...byName]
    .filter(([, servers]) => servers.length > 1)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, servers]) => ticketCheck(name, servers));
}

function ticketCheck(name: string, servers: readonly Server[]): Check {
  const meetings: Meeting[] = [];
  servers.forEach((a, i) => {
    for (const b of servers.slice(i + 1)) {
      const overlap = ticketOverlap(a, b);
      if (overlap) meetings.push({ a, b, overlap });
    }
  });
  const details = {
    servers,
    clashes: meetings.map(({ a, b, overlap }) => ({ databases: [a.database, b.database], ...overlap })),
  };
  if (meetings.length > 0) {
    const said = meetings.map(
      ({ a, b, overlap }) =>
        `${side(a)} and ${side(b)} both hand out ${grouped(overlap.first)}, then every ${grouped(overlap.every)}`,
    );
    return check(
      `ticket ${name}`,
      'fail',
      `${said.join('; ')}: give every server of a ticket one step and an offset of its own`,
      { code: 'SERVER_CONFIG', details },
    );
  }
  const steps = new Set(servers.map((server) => server.step));
  const shape = servers.map((server) => `step ${server.step} offset ${server.offset}`);
  const note = steps.size > 1 ? 'the steps differ, but ' : '';
  return check(
    `ticket ${name}`,
    'ok',
    `on ${listed(servers.map((s) => s.database))} (${shape.join(', ')}): ${note}no value is handed out twice`,
    { details },
  );
}

function side(server: Server): string {
  return `${server.database} (step ${server.step}, offset ${server.offset})`;
}
