import { SheafError } from './errors.js';
import { fieldError } from './field-error.js';
import { detailValue, formatArgument, typeName } from './format.js';
import type { Layout } from './layout.js';

/**
 * `shard` when it is a non-negative safe integer, and at most `layout.maxShard` when a layout is
 * given; `SHARD_OUT_OF_RANGE` otherwise. Without a layout, for shards sent to a database, which
 * checks the upper limit against the layout it was installed with.
 *
 * @example
 * shardArgument(7); // 7
 * shardArgument(1.5, presets.sheaf); // throws: shard 1.5 is not an integer (12 shard bits, max 4095)
 */
export function shardArgument(shard: unknown, layout?: Layout): number {
  if (layout !== undefined) {
    if (Number.isSafeInteger(shard) && (shard as number) >= 0 && (shard as number) <= layout.maxShard) {
      return shard as number;
    }
    throw fieldError('SHARD_OUT_OF_RANGE', 'shard', shard, layout.shardBits, layout.maxShard);
  }
  if (Number.isSafeInteger(shard) && (shard as number) >= 0) return shard as number;
  throw new SheafError('SHARD_OUT_OF_RANGE', `shard ${formatArgument(shard)} is not a non-negative integer`, {
    details: { shard: detailValue(shard), type: typeName(shard) },
  });
}
