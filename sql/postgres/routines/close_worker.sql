-- Ends a lease as the holder saw it: frees the worker id and records the last millisecond actually
-- issued, which may be below the bound the heartbeats recorded (release_worker only raises it).
-- Returns false, changing nothing, when the token no longer holds the id.
create or replace function sheaf.close_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint) returns boolean
language plpgsql volatile security definer set search_path = pg_catalog, pg_temp as $$
begin
  if worker_id is null or lease_token is null then
    perform sheaf._fail('SH002', format('close needs a worker_id and a lease_token, not %s and %s',
      coalesce(worker_id::text, 'null'), coalesce(lease_token::text, 'null')));
  end if;
  if last_timestamp_ms is null or last_timestamp_ms < 0 then
    perform sheaf._fail('SH002', format('worker %s: last_timestamp_ms must be 0 or more, not %s', worker_id,
      coalesce(last_timestamp_ms::text, 'null')));
  end if;
  update sheaf.workers w
  set holder = null, lease_token = null, expires_at = null, last_timestamp_ms = close_worker.last_timestamp_ms
  where w.worker_id = close_worker.worker_id and w.lease_token = close_worker.lease_token;
  return found;
end
$$;
