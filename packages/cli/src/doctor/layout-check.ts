import { defineLayout, isSheafError, layoutLifetime } from '@sheaf/core';
import type { InstalledState } from '../installed-state.js';
import { type Check, check } from './check.js';
import { duration, yearMs } from './format.js';

/** A layout that runs out sooner than this is a warning: moving ids to a new layout takes planning. */
export const layoutWarnMs = 5 * yearMs;

/** The last instant the installed layout can encode, against `nowMs`. */
export function layoutCheck(state: InstalledState, nowMs: number): Check {
  let lastMs: number;
  try {
    lastMs = layoutLifetime(defineLayout(state.layout)).getTime();
  } catch (error) {
    // defineLayout refuses a layout that has already run out, naming the date.
    if (!isSheafError(error)) throw error;
    return check('layout', 'fail', bare(error.message), { code: error.code, details: { layout: state.layout.name } });
  }
  const left = lastMs - nowMs;
  const runsOut = new Date(lastMs).toISOString();
  const details = { layout: state.layout.name, runsOut, msLeft: left };
  const message = `${state.layout.name} runs out at ${runsOut}, in ${duration(left)}`;
  if (left < layoutWarnMs) {
    return check('layout', 'warn', `${message}: next_id() fails after it (TIME_EXHAUSTED); plan a new layout`, {
      details,
    });
  }
  return check('layout', 'ok', message, { details });
}

/** A SheafError's message without its "sheaf: " prefix, to sit inside a report line. */
export function bare(message: string): string {
  return message.replace(/^sheaf: /, '');
}
