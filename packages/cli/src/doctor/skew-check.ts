import { type Check, check } from './check.js';
import type { ClockSample } from './clock-sample.js';

/**
 * Above this the clocks disagree noticeably: ids made in the application (SnowflakeGenerator) and
 * in the database interleave out of time order by that much.
 */
export const skewWarnMs = 100;
/**
 * Above this a SnowflakeGenerator taking over a worker id from another machine must wait out the
 * skew beyond its `maxStartWaitMs` (1 s by default) and refuses to start, and time ranges by id
 * miss rows.
 */
export const skewFailMs = 1000;

/** This host's clock against the server's; judged on the smallest skew the round trip allows. */
export function skewCheck(sample: ClockSample): Check {
  const { skewMs, uncertaintyMs } = sample;
  const leastSkew = Math.max(Math.abs(skewMs) - uncertaintyMs, 0);
  const direction = skewMs >= 0 ? 'ahead of' : 'behind';
  const message = `server clock ${ms(Math.abs(skewMs))} ± ${ms(uncertaintyMs)} ${direction} this host`;
  const details = { skewMs: round(skewMs), uncertaintyMs: round(uncertaintyMs), rttMs: round(sample.rttMs) };
  if (leastSkew > skewFailMs) {
    return check('clock skew', 'fail', `${message} (limit ${skewFailMs} ms): synchronise the clocks (NTP)`, {
      code: 'SERVER_CONFIG',
      details,
    });
  }
  if (leastSkew > skewWarnMs) {
    return check('clock skew', 'warn', `${message} (warns above ${skewWarnMs} ms): check NTP on both`, { details });
  }
  return check('clock skew', 'ok', message, { details });
}

function ms(value: number): string {
  return `${round(value)} ms`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
