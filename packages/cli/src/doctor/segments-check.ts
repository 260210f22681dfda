import { type Check, check } from './check.js';
import { duration, grouped, yearMs } from './format.js';
import { isUnreadable, type SegmentRow, type Unreadable } from './probe.js';

/** `max_id` is a signed bigint on both dialects. */
const maxId = (1n << 63n) - 1n;
/**
 * The pace the runway is projected at: one allocation of the row's step per 15 minutes, the
 * fastest SegmentGenerator's dynamic step settles at (it doubles the step while a segment lasts
 * less). The table keeps no history, so no observed rate exists to project from.
 */
export const allocationPeriodMs = 15 * 60_000;
/** Fewer allocations left than 5 years at that pace is a warning. */
export const segmentWarnMs = 5 * yearMs;

/** One check per `biz_tag`: the id space left before `max_id`'s limit, in allocations at the row's step. */
export function segmentsCheck(rows: readonly SegmentRow[] | Unreadable): Check[] {
  if (isUnreadable(rows)) return [check('segments', 'warn', `cannot read the segments: ${rows.unreadable}`)];
  if (rows.length === 0) return [check('segments', 'ok', 'no segments defined')];
  return rows.map(segmentCheck);
}

function segmentCheck(row: SegmentRow): Check {
  const name = `segment ${row.bizTag}`;
  const left = maxId - row.maxId;
  const allocations = left / BigInt(row.step);
  const runwayMs = Number(allocations) * allocationPeriodMs;
  const last = `last allocated ${new Date(row.updatedMs).toISOString()} (${duration(row.serverMs - row.updatedMs)} ago)`;
  const details = { maxId: row.maxId, step: row.step, idsLeft: left, allocationsLeft: allocations, runwayMs };
  const space = `${grouped(allocations)} allocations of ${grouped(row.step)} left below ${maxId}`;
  if (allocations === 0n) {
    return check(name, 'fail', `max_id ${row.maxId} + step ${row.step} exceeds ${maxId}; ${last}`, {
      code: 'SEGMENT_EXHAUSTED',
      details,
    });
  }
  const runway = runwayMs > 1000 * yearMs ? 'over 1,000 years' : duration(runwayMs);
  const message = `${space} (${runway} at one per 15 min); ${last}`;
  if (runwayMs < segmentWarnMs) return check(name, 'warn', message, { details });
  return check(name, 'ok', message, { details });
}
