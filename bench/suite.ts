/** One benchmark suite: measures its candidates and its baselines in the same run. */
export interface BenchSuite {
  readonly name: string;
  /** Runs the suite and returns its results as a Markdown section (a heading, a table, notes). */
  run(): Promise<string>;
}

/** A Markdown table from a header row and data rows. */
export function markdownTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const line = (cells: readonly unknown[]) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `value / baseline` as a percentage with no decimals, e.g. `87 %`. */
export function ratio(value: number, baseline: number): string {
  return `${Math.round((value / baseline) * 100)} %`;
}

/** A rate with thousands separators, e.g. `1,234,567`. */
export function rate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** One target of an issue, as measured in this run. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/** The targets as a Markdown table with a verdict per row: the run judges itself. */
export function targetTable(checks: readonly TargetCheck[]): string {
  const rows = checks.map(({ target, measured, met }) => [target, measured, met ? 'met' : '**not met**']);
  return `#### Targets\n\n${markdownTable(['target', 'measured', ''], rows)}`;
}
