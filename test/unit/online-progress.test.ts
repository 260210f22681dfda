import { describe, expect, it } from 'vitest';
import { progressBar } from '../../packages/migrate/src/online/online-progress.js';

/** A progress bar on a fake clock that moves 3 s per call, so that every update prints a line. */
function bar(total: bigint, interactive = false) {
  const lines: string[] = [];
  let clock = 0;
  const now = () => {
    clock += 3000;
    return clock;
  };
  const output = { out: () => undefined, err: (text: string) => lines.push(text) };
  return { lines, progress: progressBar(output, 'backfill public.t', total, { interactive, resumedAt: 0n, now }) };
}

const percents = (lines: readonly string[]) => lines.map((line) => Number(/\((\d+)%\)/.exec(line)?.[1]));

describe('online backfill progress', () => {
  it('counts up to the total, then says 100% once, at the end', () => {
    const { lines, progress } = bar(1000n);
    for (const done of [250n, 500n, 750n]) progress.update(done);
    progress.finish(1000n);
    expect(lines[0]).toMatch(/^backfill public\.t: 250\/1000 rows \(25%\), \d+ rows\/s, ETA \d+s\n$/);
    expect(percents(lines)).toEqual([25, 50, 75, 100]);
    expect(lines.at(-1)).toMatch(/^backfill public\.t: 1000\/1000 rows \(100%\), .* ETA 0s\n$/);
  });

  // Rows inserted during the backfill below its upper key are copied too: done passes the count.
  it('never passes 100% when rows inserted meanwhile make done exceed the total', () => {
    const { lines, progress } = bar(1000n);
    for (const done of [600n, 1000n, 1200n, 1500n]) progress.update(done);
    progress.finish(1500n);
    expect(percents(lines)).toEqual([60, 99, 99, 99, 100]);
    expect(lines[1]).toMatch(/: 1000\/1000 rows \(99%\)/);
    expect(lines[2]).toMatch(
      /^backfill public\.t: 1200 rows, more than the 1000 counted at the start \(99%\), \d+ rows\/s, ETA \?\n$/,
    );
    expect(lines.at(-1)).toMatch(/^backfill public\.t: 1500\/1500 rows \(100%\)/);
    for (const line of lines) {
      const [, done, whole] = /(\d+)\/(\d+) rows/.exec(line) ?? [];
      if (done !== undefined) expect(BigInt(done)).toBeLessThanOrEqual(BigInt(whole ?? 0));
    }
  });

  it('keeps the bar within its width on a terminal', () => {
    const { lines, progress } = bar(10n, true);
    progress.update(25n);
    progress.finish(30n);
    for (const line of lines) expect(/\[([#-]+)\]/.exec(line)?.[1]).toHaveLength(24);
    expect(lines[0]).toContain('25 rows, more than the 10 counted at the start (99%)');
    expect(lines[0]).toContain('[#######################-]');
    expect(lines.at(-1)).toMatch(/\[#{24}\] 30\/30 rows \(100%\).*\n$/);
  });

  it('ends at 100% when rows were deleted meanwhile and fewer were copied than counted', () => {
    const { lines, progress } = bar(1000n);
    progress.update(400n);
    progress.finish(900n);
    expect(percents(lines)).toEqual([40, 100]);
    expect(lines.at(-1)).toMatch(/ 900\/900 rows \(100%\)/);
  });
});
