import type { LoadVerdict } from './machine-load.js';
import { machineVerdict } from './machine-watch.js';

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
  /** Undefined: not measured in this run (a peer the server does not offer), so neither met nor missed. */
  readonly met: boolean | undefined;
}

/**
 * The targets as a Markdown table with a verdict per row: the run judges itself, unless the machine
 * was busy (docs/benchmarks.md, "When a run judges its targets"): then every measured row says "not judged" and
 * the line below says what was measured of the machine, as it also does when the run judges.
 */
export function targetTable(checks: readonly TargetCheck[], machine: LoadVerdict = machineVerdict()): string {
  const verdict = (met: boolean | undefined) =>
    met === undefined
      ? 'not measured'
      : machine.busy
        ? `not judged (busy: ${machine.busy})`
        : met
          ? 'met'
          : '**not met**';
  const rows = checks.map(({ target, measured, met }) => [target, measured, verdict(met)]);
  return `#### Targets\n\n${markdownTable(['target', 'measured', ''], rows)}\n\n${machine.summary}`;
}

/** The smallest, middle and largest of some samples. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** The spread of non-empty samples; the median of an even count is the mean of the middle two. */
export function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]!, median, max: sorted.at(-1)! };
}

/**
 * Runs every item once per round, the order rotated by one each round, so that drift (a checkpoint,
 * another process, a warming cache) falls on every item alike. Returns each item's samples in round
 * order: sample `r` of every item comes from the same round, so per-round ratios compare neighbours.
 */
export async function rotatedRounds<T, S>(
  items: readonly T[],
  rounds: number,
  run: (item: T) => Promise<S>,
): Promise<S[][]> {
  const samples = items.map(() => [] as S[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < items.length; i++) {
      const index = (i + round) % items.length;
      samples[index]!.push(await run(items[index]!));
    }
  }
  return samples;
}
