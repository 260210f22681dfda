-- Gives a database's shard back to the id space, recording `p_last_ms`, the last millisecond its ids
-- were issued at: a worker that leases the value later starts above it. False, changing nothing,
-- when `p_database_id` does not hold the value.
create definer = current_user function {state}.sheaf_release_shard(p_shard integer, p_database_id char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data sql security invoker
begin
  if p_shard is null or p_database_id is null or p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, left(concat('sheaf: release_shard needs a shard, a database_id and a last_ms of 0 or ',
      'more, not ', coalesce(p_shard, 'null'), ', ', coalesce(p_database_id, 'null'), ', ', coalesce(p_last_ms, 'null')),
      128));
  end if;
  update sheaf_workers
    set kind = 'worker', database_id = null, holder = null, lease_token = null, expires_ms = null,
      last_timestamp_ms = greatest(last_timestamp_ms, p_last_ms)
    where worker_id = p_shard and kind = 'database' and database_id = lower(p_database_id);
  return row_count() = 1;
end;
