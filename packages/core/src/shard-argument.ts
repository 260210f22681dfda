import { SheafError } from './errors.js';
import { detailValue, formatArgument, typeName } from './format.js';

/**
 * `shard` when it is a non-negative safe integer; `SHARD_OUT_OF_RANGE` otherwise. For shards sent
 * to the database, which checks the upper limit against the layout it was installed with.
 *
 * @example
 * shardArgument(7); // 7
 */
export function shardArgument(shard: unknown): number {
  if (Number.isSafeInteger(shard) && (shard as number) >= 0) return shard as number;
  throw new SheafError('SHARD_OUT_OF_RANGE', `shard ${formatArgument(shard)} is not a non-negative integer`, {
    details: { shard: detailValue(shard), type: typeName(shard) },
  });
}
