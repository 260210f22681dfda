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
