-- Sets the shard and layout, with the shard claimed in the id space first (30016 when another holder
-- has it: then nothing changed; MySQL commits each statement, so the claim must come before the
-- settings), and the old one given back, unless it is also a logical shard, with the last
-- millisecond its ids can carry. The layout is fixed once ids were issued: the probe that tells
-- allows for the counter's step (auto_increment_increment: the cluster's size on Galera) and counts
-- the Galera nodes' claims.
create definer = current_user procedure {state}.sheaf_configure(in p_shard integer, in p_layout varchar(40),
  in p_epoch bigint, in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data sql security invoker
begin
  declare v_k, v_probe, v_old_epoch, v_last_ms, v_ahead bigint;
  declare v_layout_changes, v_issued, v_released boolean;
  declare v_old_shard, v_old_seq_bits integer;
  declare v_db char(36);
  if p_layout is null or not (p_layout regexp '^[a-z0-9_-]{1,40}$')
      or cast(p_layout as binary) <> cast(lower(p_layout) as binary) then
    call sheaf__fail(30008, concat('sheaf: layout name ', coalesce(quote(p_layout), 'null'),
      ' must be 1 to 40 of a-z, 0-9, _ and -'));
  end if;
  if p_time_bits is null or p_shard_bits is null or p_seq_bits is null or p_epoch is null or p_time_bits < 1
      or p_seq_bits < 1 or p_shard_bits < 0 or p_time_bits + p_shard_bits + p_seq_bits > 64 or p_epoch < 0 then
    call sheaf__fail(30008, concat('sheaf: layout ', p_layout, ' is invalid: epoch ', coalesce(p_epoch, 'null'), ', ',
      coalesce(p_time_bits, 'null'), '+', coalesce(p_shard_bits, 'null'), '+', coalesce(p_seq_bits, 'null'), ' bits'));
  end if;
  call sheaf__check_shard(p_shard, p_shard_bits);
  select shard_id, epoch_ms, sequence_bits, database_id, probe_k,
      (epoch_ms, time_bits, shard_bits, sequence_bits) <> (p_epoch, p_time_bits, p_shard_bits, p_seq_bits)
    into v_old_shard, v_old_epoch, v_old_seq_bits, v_db, v_probe, v_layout_changes
    from sheaf_settings where singleton = 1;
  if v_layout_changes then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    -- A Galera node's claims move its own counter, which starts at 1.
    select v_k > probe_k + @@auto_increment_increment or exists (select 1 from information_schema.tables
        where table_schema = database() and table_name like 'sheaf\_node\_chunks\_%' and auto_increment > 1)
      into v_issued from sheaf_settings where singleton = 1;
    if v_issued then
      call sheaf__fail(30005, concat('sheaf: cannot change layout ', (select layout_name from sheaf_settings),
        ' to ', p_layout, ': ids were already issued with it'));
    end if;
    set v_probe = v_k;
  end if;
  -- A free value given back a moment ago, whose last millisecond is at most 1 s ahead of the clock
  -- (sheaf_configure records 8 ms to spare), is waited for as a starting generator waits; read in a
  -- statement of its own, which in autocommit commits before the claim locks the row.
  set v_ahead = (select w.last_timestamp_ms + 1 - c.now_ms
    from sheaf_workers w, (select floor(unix_timestamp(sysdate(3)) * 1000) as now_ms) c
    where w.worker_id = p_shard and w.kind = 'worker' and (w.expires_ms is null or w.expires_ms < c.now_ms));
  if v_ahead between 1 and 1000 then
    do sleep(v_ahead / 1000);
  end if;
  set v_last_ms = sheaf__claim_own_shard(p_shard, false);
  update sheaf_settings set shard_id = p_shard, layout_name = p_layout, epoch_ms = p_epoch, time_bits = p_time_bits,
    shard_bits = p_shard_bits, sequence_bits = p_seq_bits, test_clock = coalesce(p_test, false), probe_k = v_probe,
    configured_at = current_timestamp(3)
    where singleton = 1;
  -- This session's cached chunk belongs to the old shard.
  set @sheaf_id_next = null;
  -- A Galera node's shard stays taken: the node issues it whatever the settings say.
  if p_shard <> v_old_shard and not exists (select 1 from sheaf_logical_shards where shard_id = v_old_shard)
      and not exists (select 1 from sheaf_nodes where shard_id = v_old_shard) then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    -- This probe is no id: where none was issued since the last probe, none is issued still.
    update sheaf_settings set probe_k = v_k where singleton = 1 and probe_k + @@auto_increment_increment >= v_k;
    set v_last_ms = greatest((v_k >> (v_old_seq_bits - greatest(v_old_seq_bits - 2, 0))) + v_old_epoch,
      floor(unix_timestamp(sysdate(3)) * 1000)) + 8;
    set v_released = sheaf_release_shard(v_old_shard, v_db, v_last_ms);
  end if;
end;
