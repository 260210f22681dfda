import type { Output } from '../output.js';

/** Reports a backfill's progress on stderr. */
export interface Progress {
  /** `done` rows of the table are copied so far (including those of an earlier, interrupted run). */
  update(done: bigint): void;
  /** Prints the final state and ends the line. */
  finish(done: bigint): void;
}

export interface ProgressOptions {
  /** A terminal: one bar redrawn in place. Otherwise (a log, a pipe) a plain line every few seconds. */
  readonly interactive: boolean;
  /** Rows already done when this run started, left out of the rate. */
  readonly resumedAt: bigint;
  readonly now?: () => number;
}

const barWidth = 24;
const redrawMs = 100;
const lineMs = 2000;

/**
 * A progress bar for `label`: rows done of `total` (an estimate, so `done` may pass it), the rate of
 * this run, and the time left at that rate.
 */
export function progressBar(output: Output, label: string, total: bigint, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  let printed = Number.NEGATIVE_INFINITY;
  let shown: bigint | undefined;
  const render = (done: bigint) => {
    const whole = done > total ? done : total;
    const fraction = whole === 0n ? 1 : Number(done) / Number(whole);
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = Number(done - options.resumedAt) / seconds;
    const eta = rate > 0 ? formatDuration(Number(whole - done) / rate) : '?';
    const counts = `${done}/${whole} rows (${Math.floor(fraction * 100)}%), ${Math.round(rate)} rows/s, ETA ${eta}`;
    if (!options.interactive) return `${label}: ${counts}\n`;
    const filled = Math.round(fraction * barWidth);
    return `\r${label} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${counts}\x1b[K`;
  };
  return {
    update(done) {
      const interval = options.interactive ? redrawMs : lineMs;
      if (now() - printed < interval) return;
      printed = now();
      shown = done;
      output.err(render(done));
    },
    finish(done) {
      if (options.interactive) output.err(`${render(done)}\n`);
      else if (shown !== done) output.err(render(done));
    },
  };
}

/** `1h02m`, `3m05s`, `42s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
