-- Takes `candidate` when it has no row, or a worker row whose lease is free or expired; no row
-- when another holder has it. The insert … on conflict do update is the arbiter between takers.
create or replace function sheaf._take_worker(candidate integer, holder text, lease_ms integer)
returns table (worker_id integer, lease_token uuid, last_timestamp_ms bigint)
language sql volatile as $$
  insert into sheaf.workers as w (worker_id, holder, lease_token, expires_at, heartbeat_at)
  values (_take_worker.candidate, _take_worker.holder, gen_random_uuid(),
    clock_timestamp() + _take_worker.lease_ms * interval '1 millisecond', clock_timestamp())
  on conflict on constraint workers_pkey do update
  set holder = excluded.holder, lease_token = excluded.lease_token, expires_at = excluded.expires_at,
    heartbeat_at = excluded.heartbeat_at
  where w.kind = 'worker' and (w.expires_at is null or w.expires_at < clock_timestamp())
  returning w.worker_id, w.lease_token, w.last_timestamp_ms
$$;
