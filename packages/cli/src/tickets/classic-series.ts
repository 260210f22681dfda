import { SheafError } from '@sheaf/core';
import type { ClassicReading } from './classic-types.js';

/** A ticket series: `offset, offset + step, offset + 2·step, …`. */
export interface Series {
  readonly step: number;
  readonly offset: number;
}

/** The offset (1 … step) of the series `value` belongs to. */
export function offsetOf(value: bigint, step: number): number {
  const s = BigInt(step);
  return Number((((value - 1n) % s) + s) % s) + 1;
}

/**
 * Checks that a classic server hands out `series`, by what it is configured with and the values
 * it handed out; returns that evidence, in words. TICKET_SERIES_MISMATCH, naming the server, the series
 * it was said to have and what contradicts it: adopting it under another offset would continue
 * its tickets in another server's series. A server that handed out tickets and shows nothing that
 * tells its series (an empty table, per-session settings) is refused too: nothing can be checked.
 */
export function checkSeries(server: string, reading: ClassicReading, series: Series): string[] {
  const evidence: string[] = [];
  const { configured } = reading;
  if (configured) {
    if (configured.step !== series.step || configured.offset !== series.offset) {
      throw mismatch(
        server,
        series,
        `${configured.source} make it offset ${configured.offset} of step ${configured.step}`,
      );
    }
    evidence.push(configured.source);
  }
  for (const { what, value } of reading.handedOut) {
    const offset = offsetOf(value, series.step);
    if (offset !== series.offset)
      throw mismatch(server, series, `${what} is ${value}, offset ${offset} of step ${series.step}`);
    evidence.push(`${what} ${value}`);
  }
  if (evidence.length === 0 && reading.highest > 0n) {
    throw mismatch(
      server,
      series,
      `its table is empty and nothing says which series it hands out (auto_increment_increment is set per session, if at all): draw one ticket on it the way the applications do, then run this again`,
    );
  }
  return evidence;
}

function mismatch(server: string, series: Series, found: string): SheafError {
  return new SheafError(
    'TICKET_SERIES_MISMATCH',
    `classic server ${server} was given as offset ${series.offset} of step ${series.step}, but ${found}: ` +
      'give each server its own --offset (or list them in the order of their offsets) and the --step they share',
    { details: { server, step: series.step, offset: series.offset, found } },
  );
}
