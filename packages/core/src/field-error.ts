import { SheafError } from './errors.js';
import { formatArgument, jsonSafe } from './format.js';

/**
 * The error of a shard or sequence field that is not an integer from 0 to `max`: `encodeId`'s parts,
 * and shards given with their layout (`install`, `SnowflakeGenerator.start({ workerId })`).
 */
export function fieldError(
  code: 'SHARD_OUT_OF_RANGE' | 'SEQUENCE_OUT_OF_RANGE',
  field: string,
  value: unknown,
  bits: number,
  max: number,
): SheafError {
  const problem = !Number.isInteger(value)
    ? `is not an integer (${bits} ${field} bits, max ${max})`
    : Number.isSafeInteger(value)
      ? `does not fit ${bits} ${field} bits (max ${max})`
      : `is not a safe integer: a Number above 2^53-1 is already rounded (${bits} ${field} bits)`;
  return new SheafError(code, `${field} ${formatArgument(value)} ${problem}`, {
    details: { [field]: jsonSafe(value), bits, max },
  });
}
