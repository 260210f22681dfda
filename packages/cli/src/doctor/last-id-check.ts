import { type Check, check } from './check.js';
import { duration } from './format.js';
import type { GeneratorWindow } from './generator-sample.js';

/**
 * The server clock against the last id issued there. Behind it, ids stay unique (they continue
 * from the last one) but carry future times until the clock catches up: a clock stepped back, or
 * a burst that borrowed milliseconds.
 */
export function lastIdCheck({ second }: GeneratorWindow, lookaheadMs: number): Check {
  if (second.lastIdMs === undefined) return check('last id', 'ok', 'no ids issued since the layout was set');
  const leadMs = second.lastIdMs - second.serverMs;
  const lastId = new Date(second.lastIdMs).toISOString();
  const details = { lastIdAt: lastId, leadMs, lookaheadMs };
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
