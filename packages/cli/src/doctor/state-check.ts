import { type Target, targetUrl } from '../connection.js';
import { describeGaps, type StateGap } from '../state-gaps.js';
import { type Check, check } from './check.js';

/**
 * What the generator needs and the database lacks (a deleted settings row, a dropped sequence, a
 * schema copied without its sequences' values): a failure naming each and the install that repairs
 * it. Undefined when nothing is missing.
 */
export function stateCheck(target: Target, gaps: readonly StateGap[]): Check | undefined {
  if (gaps.length === 0) return undefined;
  return check('state', 'fail', describeGaps(gaps, targetUrl(target)), {
    code: 'STATE_DAMAGED',
    details: { gaps },
  });
}
