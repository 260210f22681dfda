import { SheafError } from '@sheaf/core';
import type { Check, CheckStatus } from './check.js';
import type { IdSpaceReport } from './id-space-report.js';

/** The checks of one database, as printed and as JSON. */
export interface DatabaseReport {
  readonly database: string;
  readonly dialect: string;
  readonly checks: readonly Check[];
}

/** Everything `sheaf doctor` found: each database's checks, then those of the id space they share. */
export interface DoctorReport {
  readonly databases: readonly DatabaseReport[];
  readonly idSpace?: IdSpaceReport;
}

interface Section {
  readonly title: string;
  /** How the exit error names the section: "on <database>", "in the id space". */
  readonly where: string;
  readonly checks: readonly Check[];
}

/** How many checks came out each way, over every database and the id space. */
export function tally(report: DoctorReport): Record<CheckStatus, number> {
  const counts = { ok: 0, warn: 0, fail: 0 };
  for (const section of sections(report)) for (const { status } of section.checks) counts[status]++;
  return counts;
}

/** The report as a table per database, then one for the id space, then a summary line. */
export function renderText(report: DoctorReport): string {
  const all = sections(report);
  const width = Math.max(...all.flatMap((section) => section.checks.map((c) => c.name.length)));
  const blocks = all.map((section) => {
    const lines = section.checks.map((c) => `  ${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}`);
    return `${section.title}\n${lines.join('\n')}\n`;
  });
  const { ok, warn, fail } = tally(report);
  const count = report.databases.length;
  const databases = `${count} database${plural(count)}`;
  return `${blocks.join('\n')}\n${databases}: ${ok} ok, ${warn} warning${plural(warn)}, ${fail} failure${plural(fail)}\n`;
}

/**
 * The error that makes the command exit 1 once the report is out: coded with the first failure's
 * code, or a plain error (reported like a driver error) when only unreachable databases failed.
 */
export function failureError(report: DoctorReport): Error | undefined {
  const failures = sections(report).flatMap((section) =>
    section.checks.filter((c) => c.status === 'fail').map((c) => ({ ...c, where: section.where })),
  );
  if (failures.length === 0) return undefined;
  // The report above holds the reasons; this line only names what failed where.
  const list = failures.map((f) => `${f.name} ${f.where}`).join(', ');
  const message = `${failures.length} check${plural(failures.length)} failed: ${list}`;
  const code = failures.find((f) => f.code !== undefined)?.code;
  return code === undefined
    ? new Error(message)
    : new SheafError(code, message, { details: { failures: failures.length } });
}

function sections(report: DoctorReport): Section[] {
  const databases = report.databases.map((db) => ({
    title: `${db.database} (${db.dialect})`,
    where: `on ${db.database}`,
    checks: db.checks,
  }));
  if (!report.idSpace) return databases;
  const { databases: compared, checks } = report.idSpace;
  const title = `id space of ${compared.length} database${plural(compared.length)}`;
  return [...databases, { title, where: 'in the id space', checks }];
}

function plural(count: number): string {
  return count === 1 ? '' : 's';
}
