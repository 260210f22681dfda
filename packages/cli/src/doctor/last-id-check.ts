import { type Check, check } from './check.js';
import { duration } from './format.js';
import type { GeneratorSample, GeneratorWindow } from './generator-sample.js';

/**
 * Ahead of the clock by more than this, and not issuing faster than the clock while watched (a
 * burst), the counter is a failure, not a step to wait out: it is the largest backwards step any of
 * sheaf's generators may be set to wait out (SnowflakeGenerator's `maxBackwardsMs` stops at 60 s)
 * and 8,500 times the 7 ms MySQL claims ahead. Ids carry times that far in the future, so time
 * ranges by id miss them.
 */
export const counterFailMs = 60_000;

/** What the last-id check knows of the counter besides its samples. */
export interface CounterFacts {
  /** How far ahead of the clock the generator claims when healthy (probe-sql.ts). */
  readonly lookaheadMs: number;
  /** What holds the newest millisecond, for messages. */
  readonly name: string;
  /** The layout's last millisecond (unix ms), when the layout is valid. */
  readonly layoutEndMs: number | undefined;
  /** How sheaf's owner brings back a counter moved past the layout's end, where sheaf has a way. */
  readonly repair: string | undefined;
}

/**
 * The server clock against the last id issued there. Behind it, ids stay unique (they continue
 * from the last one) but carry future times until the clock catches up: a clock stepped back, or
 * a burst that borrowed milliseconds; beyond {@link counterFailMs} with no burst under way, a
 * counter moved by hand or a clock stepped back that far; at the layout's end, a moved counter.
 */
export function lastIdCheck({ first, second }: GeneratorWindow, counter: CounterFacts): Check {
  const { lookaheadMs, name, layoutEndMs, repair } = counter;
  if (second.lastIdMs === undefined) return check('last id', 'ok', 'no ids issued since the layout was set');
  const leadMs = second.lastIdMs - second.serverMs;
  const lastId = iso(second.lastIdMs);
  const details = { lastIdAt: lastId, serverAt: iso(second.serverMs), leadMs, lookaheadMs };
  if (layoutEndMs !== undefined && second.lastIdMs >= layoutEndMs) {
    return check(
      'last id',
      'fail',
      `${name} is at ${lastId}, at the layout's last millisecond (${iso(layoutEndMs)}) or past it, with the server clock at ` +
        `${iso(second.serverMs)}: claims fail (TIME_EXHAUSTED); someone moved it there` +
        (repair ? `; ${repair}` : ''),
      { code: 'TIME_EXHAUSTED', details },
    );
  }
  if (leadMs > counterFailMs && !outrunsClock(first, second)) {
    return check(
      'last id',
      'fail',
      `${name} is at ${lastId}, ${duration(leadMs)} ahead of the server clock (${iso(second.serverMs)}; ` +
        `fails above ${duration(counterFailMs)}): someone moved it, or the clock stepped back by that much; ` +
        'new ids carry its future times (docs/cli.md, doctor)',
      { code: 'CLOCK_MOVED_BACKWARDS', details },
    );
  }
  if (leadMs > lookaheadMs) {
    return check(
      'last id',
      'warn',
      `the server clock is ${duration(leadMs)} behind the last id (${lastId}): new ids borrow future ` +
        'milliseconds until it catches up (a clock stepped back, or a burst above capacity)',
      { details },
    );
  }
  const when =
    leadMs > 0
      ? `${leadMs} ms ahead (within the ${lookaheadMs} ms the generator claims ahead)`
      : `${duration(-leadMs)} ago`;
  return check('last id', 'ok', `last id's millisecond ${lastId}, ${when}`, { details });
}

// Issuing above capacity during the window: a burst makes the lead as it grows (the saturation check
// says by how much), where a moved counter or a stepped clock leaves a lead that does not grow.
function outrunsClock(first: GeneratorSample, second: GeneratorSample): boolean {
  if (first.lastIdMs === undefined || second.lastIdMs === undefined) return false;
  return second.lastIdMs - first.lastIdMs > second.serverMs - first.serverMs;
}

// A counter moved past what Date can hold still gets a line.
function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString();
}
