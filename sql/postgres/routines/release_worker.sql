-- Frees a worker id and records the holder's final last_timestamp_ms. Returns false, changing nothing,
-- when the token no longer holds the id: releasing a lost lease is harmless.
create or replace function sheaf.release_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint default null)
returns boolean
language plpgsql volatile security definer set search_path = pg_catalog, pg_temp as $$
begin
  if worker_id is null or lease_token is null then
    perform sheaf._fail('SH002', format('release needs a worker_id and a lease_token, not %s and %s',
      coalesce(worker_id::text, 'null'), coalesce(lease_token::text, 'null')));
  end if;
  if last_timestamp_ms < 0 then
    perform sheaf._fail('SH002', format('worker %s: last_timestamp_ms must be 0 or more, not %s', worker_id,
      last_timestamp_ms));
  end if;
  update sheaf.workers w
  set holder = null, lease_token = null, expires_at = null,
    last_timestamp_ms = greatest(w.last_timestamp_ms, coalesce(release_worker.last_timestamp_ms, 0))
  where w.worker_id = release_worker.worker_id and w.lease_token = release_worker.lease_token;
  return found;
end
$$;
