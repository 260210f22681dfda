-- A new chunk and its first id (the slow path of sheaf_next_id): one AUTO_INCREMENT value of
-- sheaf_chunks, after moving the counter forward to the clock when it is behind. Chunks are
-- 2^(sequence_bits - 2) ids, four per millisecond; more claims in a millisecond borrow the next one
-- instead of wrapping, and a clock that steps back finds the counter ahead of it: ids continue above
-- the last one issued. On a Galera node the shard is the node's own (30025 without one), and so is
-- the counter: sheaf__node_claim. A test install replaces its clock statement
-- (install/mysql-test-clock.ts).
create definer = current_user function {state}.sheaf__claim_chunk() returns bigint
  not deterministic modifies sql data
begin
  declare v_shard, v_time_bits, v_shard_bits, v_seq_bits, v_unit_bits, v_chunk_bits, v_low_bits integer;
  declare v_epoch, v_clock, v_now, v_last, v_max_tick, v_first_k, v_k, v_tick, v_base, v_s bigint;
  declare v_slot integer;
  declare v_ahead, v_hot boolean;
  declare v_name varchar(40);
  declare v_node varchar(64);
  select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits
    into v_shard, v_name, v_epoch, v_time_bits, v_shard_bits, v_seq_bits
    from sheaf_settings where singleton = 1;
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    select shard_id, slot into v_shard, v_slot from sheaf_nodes where node = v_node;
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
  end if;
  -- The claim's clock: a test install rewrites this statement and nothing else.
  set v_clock = floor(unix_timestamp(sysdate(3)) * 1000);
  set v_now = v_clock - v_epoch, v_unit_bits = greatest(v_seq_bits - 2, 0), v_low_bits = v_shard_bits + v_seq_bits;
  set v_max_tick = least(if(v_time_bits >= 63, 9223372036854775807, (1 << v_time_bits) - 1),
    9223372036854775807 >> v_low_bits);
  if v_now < 0 then
    call sheaf__fail(30004, concat('sheaf: the clock (', sheaf__iso(v_now + v_epoch), ') is before the epoch of layout ',
      v_name));
  end if;
  set v_chunk_bits = v_seq_bits - v_unit_bits;
  -- As in 0010: a session whose last chunk is at or ahead of the clock claims at once; any other
  -- first moves the counter to the clock (a hot session: 7 ms ahead of it) with an explicit value.
  -- That row's `s` is new at every claim (uuid_short(): this server's own sequence): inserting a key
  -- that a row deleted by an open transaction still has (a session's connection_id, before this
  -- file) takes a next-key lock, which blocked other sessions' inserts into the gap and made Galera
  -- abort the transaction holding it whenever a replicated claim landed there.
  set v_last = if(@sheaf_id_db <=> substring(database(), 7) and @sheaf_id_tick regexp '^[0-9]{1,18}$', @sheaf_id_tick, null);
  set v_ahead = coalesce(v_last >= v_now, false), v_hot = coalesce(v_last >= v_now - 8, false);
  claim: loop
    if not v_ahead then
      set v_first_k = (v_now + if(v_hot, 7, 0)) << v_chunk_bits;
    else
      set v_first_k = 0;
    end if;
    if v_slot is not null then
      set v_k = sheaf__node_claim(v_slot, v_first_k);
    else
      if v_first_k > 1 then
        set v_s = uuid_short() & 9223372036854775807;
        insert ignore into sheaf_chunks (k, s) values (v_first_k - 1, v_s);
        delete from sheaf_chunks where k = v_first_k - 1 and s = v_s;
      end if;
      insert into sheaf_chunks (k) values (null);
      set v_k = last_insert_id();
      delete from sheaf_chunks where k = v_k and s = 0;
    end if;
    set v_tick = v_k >> v_chunk_bits;
    if v_tick >= v_now then
      leave claim;
    end if;
    set v_ahead = false;
  end loop;
  if v_tick > v_max_tick then
    call sheaf__fail(30003, concat('sheaf: layout ', v_name, ' ran out of time at ',
      sheaf__iso(v_max_tick + v_epoch)));
  end if;
  set v_base = (v_tick << v_low_bits) | (v_shard << v_seq_bits)
    | ((v_k & ((1 << v_chunk_bits) - 1)) << v_unit_bits);
  -- @sheaf_id_until, the end of the chunk's millisecond in unix seconds, is for triggers made before 0005.
  set @sheaf_id_next = v_base + 1, @sheaf_id_end = v_base + (1 << v_unit_bits), @sheaf_id_tick = v_tick,
    @sheaf_id_db = substring(database(), 7), @sheaf_id_until = (v_tick + v_epoch + 1) / 1000, @sheaf_id_stmt = @@timestamp;
  return v_base;
end;
