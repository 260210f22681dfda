-- Gives a database's shard back to the id space, recording `last_ms`, the last millisecond its ids
-- were issued at: a worker that leases the value later starts above it. False, changing nothing,
-- when `database_id` does not hold the value.
create or replace function sheaf.release_shard(shard_id integer, database_id uuid, last_ms bigint default 0) returns boolean
language plpgsql volatile as $$
begin
  if shard_id is null or database_id is null or last_ms is null or last_ms < 0 then
    perform sheaf._fail('SH002', format('release_shard needs a shard, a database_id and a last_ms of 0 or more, '
      'not %s, %s and %s', coalesce(shard_id::text, 'null'), coalesce(database_id::text, 'null'),
      coalesce(last_ms::text, 'null')));
  end if;
  update sheaf.workers w
  set kind = 'worker', database_id = null, holder = null, lease_token = null, expires_at = null,
    last_timestamp_ms = greatest(w.last_timestamp_ms, release_shard.last_ms)
  where w.worker_id = release_shard.shard_id and w.kind = 'database' and w.database_id = release_shard.database_id;
  return found;
end
$$;
