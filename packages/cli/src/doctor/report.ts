import { SheafError } from '@sheaf/core';
import type { Check, CheckStatus } from './check.js';

/** The checks of one database, as printed and as JSON. */
export interface DatabaseReport {
  readonly database: string;
  readonly dialect: string;
  readonly checks: readonly Check[];
}

/** How many checks came out each way, over every database. */
export function tally(reports: readonly DatabaseReport[]): Record<CheckStatus, number> {
  const counts = { ok: 0, warn: 0, fail: 0 };
  for (const report of reports) for (const { status } of report.checks) counts[status]++;
  return counts;
}

/** The report as a table per database, then a summary line. */
export function renderText(reports: readonly DatabaseReport[]): string {
  const width = Math.max(...reports.flatMap((report) => report.checks.map((c) => c.name.length)));
  const blocks = reports.map((report) => {
    const lines = report.checks.map((c) => `  ${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}`);
    return `${report.database} (${report.dialect})\n${lines.join('\n')}\n`;
  });
  const { ok, warn, fail } = tally(reports);
  const databases = `${reports.length} database${reports.length === 1 ? '' : 's'}`;
  return `${blocks.join('\n')}\n${databases}: ${ok} ok, ${warn} warning${plural(warn)}, ${fail} failure${plural(fail)}\n`;
}

/**
 * The error that makes the command exit 1 once the report is out: coded with the first failure's
 * code, or a plain error (reported like a driver error) when only unreachable databases failed.
 */
export function failureError(reports: readonly DatabaseReport[]): Error | undefined {
  const failures = reports.flatMap((report) =>
    report.checks.filter((c) => c.status === 'fail').map((c) => ({ ...c, database: report.database })),
  );
  if (failures.length === 0) return undefined;
  // The report above holds the reasons; this line only names what failed where.
  const list = failures.map((f) => `${f.name} on ${f.database}`).join(', ');
  const message = `${failures.length} check${plural(failures.length)} failed: ${list}`;
  const code = failures.find((f) => f.code !== undefined)?.code;
  return code === undefined
    ? new Error(message)
    : new SheafError(code, message, { details: { failures: failures.length } });
}

function plural(count: number): string {
  return count === 1 ? '' : 's';
}
