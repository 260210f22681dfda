import type { AdoptReport, ClassicReport, TicketReport } from './adopt-plan.js';

/** The report as text: what each classic server showed, and what each sheaf server now hands out. */
export function renderAdoptText(report: AdoptReport): string {
  const width = Math.max(...[...report.classic, ...report.tickets].map((row) => row.server.length));
  const lines = [
    `ticket '${report.name}': step ${report.step}, headroom ${report.headroom} tickets per classic server` +
      (report.dryRun ? ' (dry run: nothing changed)' : ''),
    `classic servers (the highest ticket handed out: ${report.above}):`,
    ...report.classic.map((row) => `  ${row.server.padEnd(width)}  offset ${row.offset}  ${classicLine(row)}`),
    'sheaf servers:',
    ...report.tickets.map(
      (row, index) => `  ${row.server.padEnd(width)}  offset ${row.offset}  ${ticketLine(row, report.classic[index])}`,
    ),
  ];
  return `${lines.join('\n')}\n${nextStep(report)}\n`;
}

function classicLine(row: ClassicReport): string {
  const counter = row.counter.startsWith('sequence ') ? 'last value' : 'AUTO_INCREMENT';
  const value = row.counterValue === undefined ? 'none yet' : row.counterValue.toString();
  const max = row.maxId === undefined ? 'no rows' : `max(id) ${row.maxId}`;
  return `${row.counter}, ${counter} ${value}, ${max}: highest ${row.highest}`;
}

function ticketLine(row: TicketReport, classic: ClassicReport | undefined): string {
  const from = classic ? ` of ${classic.server}` : '';
  return `${row.action}, first ticket ${row.firstTicket} (${row.margin} more tickets${from} stay below it)`;
}

function nextStep(report: AdoptReport): string {
  if (report.dryRun) return 'Run it without --dry-run to adopt.';
  if (report.tickets.every((row) => row.action === 'unchanged')) {
    return 'Already adopted: no classic ticket reached the sheaf tickets. Retire the classic servers once no application draws from them.';
  }
  return (
    "Now switch the applications to sheaf's tickets and stop the classic servers' writes, then run this again: " +
    'it changes nothing and checks that no classic ticket reached the sheaf tickets (docs/tickets-adopt.md).'
  );
}
