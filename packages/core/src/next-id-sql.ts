import { shardArgument } from './shard-argument.js';

/**
 * The PostgreSQL expression that makes an id, for a column default: `sheaf.next_id()` for the
 * configured shard, `sheaf.next_id(n)` for an explicit one (checked against the layout by the SQL).
 * Throws `SHARD_OUT_OF_RANGE` for a shard that is not a non-negative integer.
 *
 * @example
 * `id bigint primary key default ${nextIdSql()}`; // default sheaf.next_id()
 * nextIdSql(7); // 'sheaf.next_id(7)'
 */
export function nextIdSql(shard?: number): string {
  if (shard === undefined) return 'sheaf.next_id()';
  return `sheaf.next_id(${shardArgument(shard)})`;
}
