import { isSheafError, type SheafError, type SheafErrorCode } from '@sheaf/core';
import { expect } from 'vitest';

/**
 * Runs `fn`, which must throw a SheafError with `code` whose message starts with 'sheaf: ' and
 * contains every fragment, with JSON-safe details; returns the error for further checks.
 *
 * @example
 * expectSheafError(() => parseId('x'), 'INVALID_ID', '"x"');
 */
export function expectSheafError(fn: () => unknown, code: SheafErrorCode, ...fragments: string[]): SheafError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (!isSheafError(thrown)) throw new Error(`expected a SheafError ${code}, got ${String(thrown)}`);
  expect(thrown.code).toBe(code);
  expect(thrown.message.startsWith('sheaf: ')).toBe(true);
  for (const fragment of fragments) expect(thrown.message).toContain(fragment);
  // Loggers stringify errors: details must never hold a bigint.
  expect(() => JSON.stringify(thrown.details)).not.toThrow();
  return thrown;
}

/**
 * Like {@link expectSheafError} for a promise (a query, an install): it must reject with a
 * SheafError of `code` whose message contains every fragment.
 *
 * @example
 * await expectSheafRejection(executor.query('select sheaf.next_id(5000)'), 'SHARD_OUT_OF_RANGE', '5000');
 */
export async function expectSheafRejection(
  promise: Promise<unknown>,
  code: SheafErrorCode,
  ...fragments: string[]
): Promise<SheafError> {
  const thrown = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  return expectSheafError(
    () => {
      throw thrown ?? new Error(`expected a SheafError ${code}, but the promise resolved`);
    },
    code,
    ...fragments,
  );
}
