-- Lets sheaf_next_shard_id(s) and sheaf_next_shard_ids(n, s) issue ids of p_shard here, claimed in
-- the id space first (30016 when another holder has it). Runs as its caller: an admin's rights on
-- sheaf_logical_shards, never an application's. Call it in autocommit, as install() calls
-- sheaf_configure: then each statement commits on its own.
create definer = current_user procedure {state}.sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_last_ms, v_ahead bigint;
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
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
  insert ignore into sheaf_logical_shards (shard_id) values (p_shard);
end;
