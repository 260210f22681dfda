-- sheaf's owner's way back from a chunk counter moved to the end of the layout or past it: every
-- claim fails with 30003 there. Moves the counter back to just above the clock, as long as no id at
-- or above the clock was issued: p_issued is the largest id known to be stored (NULL: none known).
-- Refused with 30019 (REPAIR_REFUSED) while claims still succeed and when p_issued is not behind
-- the clock. SQL SECURITY INVOKER: the caller needs ALTER on sheaf_chunks. On MySQL 8 the counter is
-- read from information_schema, which caches it: set information_schema_stats_expiry = 0 first.
create definer = current_user procedure {state}.sheaf_repair_counter(in p_issued bigint)
  not deterministic modifies sql data sql security invoker
begin
  declare v_epoch, v_now, v_next, v_max_tick, v_target bigint;
  declare v_low_bits, v_chunk_bits integer;
  declare v_name varchar(40);
  select layout_name, epoch_ms, shard_bits + sequence_bits, least(sequence_bits, 2),
      sheaf__max_tick(time_bits, shard_bits + sequence_bits)
    into v_name, v_epoch, v_low_bits, v_chunk_bits, v_max_tick
    from sheaf_settings where singleton = 1;
  set v_now = sheaf__now_ms() - v_epoch;
  select auto_increment into v_next from information_schema.tables
    where table_schema = database() and table_name = 'sheaf_chunks';
  -- The next claim takes v_next (or more): it fails once that chunk's tick is past the layout's.
  if (v_next >> v_chunk_bits) <= v_max_tick then
    call sheaf__fail(30019, concat('sheaf: counter at ', sheaf__iso((v_next >> v_chunk_bits) + v_epoch),
      ', within layout ', v_name, ': nothing to repair'));
  end if;
  if p_issued >> v_low_bits >= v_now then
    call sheaf__fail(30019, concat('sheaf: id ', p_issued, ' was issued at ', sheaf__iso((p_issued >> v_low_bits) + v_epoch),
      ', not before the clock'));
  end if;
  -- The next millisecond's first chunk: claims move it on to the clock as they always do.
  set v_target = (v_now + 1) << v_chunk_bits;
  set @sheaf_repair_counter = concat('alter table sheaf_chunks auto_increment = ', v_target);
  prepare s from @sheaf_repair_counter;
  execute s;
  deallocate prepare s;
  set @sheaf_repair_counter = null;
end;
