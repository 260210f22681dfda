import type { DialectName } from '@sheaf/core';

/** The queries the doctor runs, parallel per dialect (`{state}`: see inState). Times are server unix ms, read from the live clock. */
export interface ProbeSql {
  readonly nowMs: string;
  /** `last`: the generator's latest counter value; `issued`: whether ids were issued since the layout was set. */
  readonly generator: string;
  /** MySQL, a Galera node with a shard of its own: `generator` on the node's own counter (sql/mysql/0015). */
  readonly nodeGenerator?: string;
  readonly segments: string;
  /**
   * How far ahead of the clock the generator runs when healthy: MySQL's hot sessions claim 7 ms
   * ahead (docs/sql/mysql.md), and so do PostgreSQL's hot blocks from SQL version 20
   * (docs/sql/postgres.md); before it, PostgreSQL opened the clock's own millisecond.
   */
  readonly lookaheadMs: number;
  /** What holds the newest millisecond, for messages. */
  readonly counter: string;
  /** How sheaf's owner brings back a counter moved past the layout's end, where sheaf has a way. */
  readonly repair: string | undefined;
  /** The millisecond (since the epoch of the layout) of a `last` counter value. */
  tickOf(last: bigint, bits: { readonly shardBits: number; readonly sequenceBits: number }): bigint;
}

const pgNow = 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint';
// Through to_regclass: a sequence missing reads null (a gap, reported as one) instead of failing.
const pgLastBlock = "pg_sequence_last_value(to_regclass('sheaf.block'))";
// SYSDATE, not NOW(): NOW() is frozen at the start of the statement.
const mysqlNow = 'floor(unix_timestamp(sysdate(3)) * 1000)';

export const probeSql: Record<DialectName, ProbeSql> = {
  postgres: {
    nowMs: `select ${pgNow} as now_ms`,
    // The last id of the block opened most recently: its millisecond is the newest one with ids; -1 before any.
    generator: `select last, last >= 0 as issued, ${pgNow} as now_ms from (select ${pgLastBlock} as last) b`,
    segments: `select biz_tag, max_id, step, floor(extract(epoch from updated_at) * 1000)::bigint as updated_ms,
      ${pgNow} as now_ms from sheaf.segments order by biz_tag`,
    lookaheadMs: 7,
    counter: 'the sequence sheaf.block',
    repair: undefined,
    tickOf: (last, bits) => last >> BigInt(bits.shardBits + bits.sequenceBits),
  },
  mysql: {
    nowMs: `select ${mysqlNow} as now_ms`,
    // The chunk claimed last; sheaf_configure's own claim (probe_k) is not an id. The counter steps
    // by auto_increment_increment, which Galera sets to the cluster's size.
    generator: `select cast(t.auto_increment as signed) - cast(@@auto_increment_increment as signed) as last,
        t.auto_increment > s.probe_k + @@auto_increment_increment as issued, ${mysqlNow} as now_ms
      from information_schema.tables t, {state}.sheaf_settings s
      where t.table_schema = {state_text} and t.table_name = 'sheaf_chunks'`,
    // A node's counter starts at 1 and only its claims move it.
    nodeGenerator: `select cast(t.auto_increment as signed) - cast(@@auto_increment_increment as signed) as last,
        t.auto_increment > 1 as issued, ${mysqlNow} as now_ms
      from information_schema.tables t, {state}.sheaf_nodes n
      where n.node = @@global.wsrep_node_name and t.table_schema = {state_text}
        and t.table_name = concat('sheaf_node_chunks_', n.slot)`,
    segments: `select biz_tag, cast(max_id as char) as max_id, step, floor(unix_timestamp(updated_at) * 1000) as updated_ms,
      ${mysqlNow} as now_ms from {state}.sheaf_segments order by biz_tag`,
    lookaheadMs: 7,
    counter: "the chunk counter (sheaf_chunks' AUTO_INCREMENT)",
    repair: "as sheaf's owner, run `sheaf repair-counter` (docs/cli.md)",
    // Four chunks per millisecond (fewer with under 2 sequence bits): the counter is tick << chunk bits.
    tickOf: (last, bits) => last >> BigInt(Math.min(bits.sequenceBits, 2)),
  },
};
