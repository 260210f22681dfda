import { type Check, check } from './check.js';
import { grouped } from './format.js';
import type { GeneratorWindow } from './generator-sample.js';

/**
 * How close the generator runs to its 2^sequenceBits ids per millisecond. Below capacity it opens
 * the clock's own millisecond, so its last id is never ahead of the clock (beyond the dialect's
 * lookahead); above it, it borrows the next ones. While ahead, every millisecond it opens is used up
 * before the next, so milliseconds advanced over a window are ids issued in units of the capacity.
 */
export function saturationCheck(window: GeneratorWindow, lookaheadMs: number, sequenceBits: number): Check {
  const { first, second } = window;
  const capacity = 2 ** sequenceBits;
  if (second.lastIdMs === undefined) return check('saturation', 'ok', 'no ids issued since the layout was set');
  const leadMs = second.lastIdMs - second.serverMs;
  const elapsedMs = second.serverMs - first.serverMs;
  const advancedMs = first.lastIdMs === undefined ? 0 : second.lastIdMs - first.lastIdMs;
  const details = { capacityPerMs: capacity, leadMs, windowMs: elapsedMs, advancedMs };
  const ahead = `ids run ${grouped(leadMs)} ms ahead of the server clock`;
  if (leadMs <= lookaheadMs) {
    return check('saturation', 'ok', `below ${grouped(capacity)} ids/ms: ids are not ahead of the server clock`, {
      details,
    });
  }
  if (advancedMs === 0) {
    return check(
      'saturation',
      'warn',
      `${ahead}, none issued in ${elapsedMs} ms: a burst above ${grouped(capacity)} ids/ms or a clock stepped back`,
      { details },
    );
  }
  const share = Math.round((advancedMs / Math.max(elapsedMs, 1)) * 100);
  const pace = `${grouped(advancedMs)} ms of ids (${grouped(advancedMs * capacity)}) in ${elapsedMs} ms`;
  const verdict = advancedMs > elapsedMs ? `over capacity, ${share} %` : `borrowing at ${share} % of capacity`;
  return check('saturation', 'warn', `${verdict}: ${pace}; ${ahead}`, { details: { ...details, sharePercent: share } });
}
