/**
 * The reference model of sheaf.next_id(): the simplest correct snowflake, every call under one
 * lock, state in one row. It reads the same test clock. For one session it must yield exactly the
 * ids the lock-free generator yields; tests compare the two under scripted clocks.
 */
export const referenceGeneratorSql = [
  `create table sheaf_reference (last_tick bigint not null, seq integer not null)`,
  `insert into sheaf_reference values (-1, 0)`,
  `create function sheaf_reference_next_id(shard integer, shard_bits integer, seq_bits integer, epoch_ms bigint)
  returns bigint language plpgsql volatile as $$
  declare
    now_tick bigint := coalesce(nullif(current_setting('sheaf.clock_ms', true), '')::bigint,
      floor(date_part('epoch', clock_timestamp()) * 1000)::bigint)
      + coalesce(nullif(current_setting('sheaf.clock_offset_ms', true), '')::bigint, 0) - epoch_ms;
    state sheaf_reference;
  begin
    select * into state from sheaf_reference for update;
    if now_tick > state.last_tick then
      -- The last millisecond ended less than 8 ms ago: hot, the next one opens 7 ms ahead.
      state.last_tick := case when now_tick - state.last_tick <= 8 then now_tick + 7 else now_tick end;
      state.seq := 0;
    elsif state.seq = (1 << seq_bits) - 1 then
      -- More ids than a millisecond holds: borrow the next one.
      state.last_tick := state.last_tick + 1;
      state.seq := 0;
    else
      state.seq := state.seq + 1;
    end if;
    update sheaf_reference set last_tick = state.last_tick, seq = state.seq;
    return (state.last_tick << (shard_bits + seq_bits)) | (shard::bigint << seq_bits) | state.seq;
  end
  $$`,
];
