import type { SheafErrorCode } from '@sheaf/core';

/** How a check came out: `warn` needs attention soon, `fail` makes `sheaf doctor` exit 1. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One line of the doctor's report. */
export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  /** One line saying why, with the numbers it was judged on. */
  readonly message: string;
  /** For a failure: the SheafError code that the doctor's exit error carries. */
  readonly code?: SheafErrorCode;
  /** The measured values, for `--json`. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Builds a check result.
 *
 * @example
 * check('workers', 'warn', '3,500 of 4,096 worker ids leased (85 %)', { details: { live: 3500 } });
 */
export function check(
  name: string,
  status: CheckStatus,
  message: string,
  extra: { code?: SheafErrorCode; details?: Record<string, unknown> } = {},
): Check {
  return { name, status, message, ...extra };
}
