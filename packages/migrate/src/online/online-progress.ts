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
 * A progress bar for `label`: rows done of `total`, the rate of this run, and the time left at that
 * rate. `total` is counted (or estimated) before the backfill starts, and rows written since with
 * keys below the backfill's upper key are copied too: until the end, progress stops at 99% and
 * `done` past `total` reads "more than the N counted"; the last line shows what was copied, at 100%.
 */
export function progressBar(output: Output, label: string, total: bigint, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  let printed = Number.NEGATIVE_INFINITY;
  const render = (done: bigint, finished: boolean) => {
    const whole = finished ? done : total;
    const over = !finished && done > total;
    // Only the end is 100%: at `total` (or past it) rows may still come.
    const fraction = finished ? 1 : Math.min(Number(done) / Number(whole || 1n), 0.99);
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = Number(done - options.resumedAt) / seconds;
    const eta = finished ? formatDuration(0) : rate > 0 && !over ? formatDuration(Number(whole - done) / rate) : '?';
    const rows = over ? `${done} rows, more than the ${total} counted at the start` : `${done}/${whole} rows`;
    const counts = `${rows} (${Math.floor(fraction * 100)}%), ${Math.round(rate)} rows/s, ETA ${eta}`;
    if (!options.interactive) return `${label}: ${counts}\n`;
    const filled = Math.floor(fraction * barWidth);
    return `\r${label} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${counts}\x1b[K`;
  };
  return {
    update(done) {
      const interval = options.interactive ? redrawMs : lineMs;
      if (now() - printed < interval) return;
      printed = now();
      output.err(render(done, false));
    },
    finish(done) {
      output.err(options.interactive ? `${render(done, true)}\n` : render(done, true));
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
