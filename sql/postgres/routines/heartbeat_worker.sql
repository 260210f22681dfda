-- Extends a lease and records how far the holder's clock got. Raises SH013 when the lease was lost
-- (taken over, released or expired): the holder must stop issuing ids.
create or replace function sheaf.heartbeat_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint,
  lease_ms integer) returns timestamptz
language plpgsql volatile security definer set search_path = pg_catalog, pg_temp as $$
declare
  expires timestamptz;
  stored sheaf.workers;
begin
  if worker_id is null or lease_token is null then
    perform sheaf._fail('SH002', format('heartbeat needs a worker_id and a lease_token, not %s and %s',
      coalesce(worker_id::text, 'null'), coalesce(lease_token::text, 'null')));
  end if;
  if last_timestamp_ms is null or last_timestamp_ms < 0 then
    perform sheaf._fail('SH002', format('worker %s: last_timestamp_ms must be 0 or more, not %s', worker_id,
      coalesce(last_timestamp_ms::text, 'null')));
  end if;
  if lease_ms is null or lease_ms < 1 then
    perform sheaf._fail('SH002', format('worker %s: lease_ms must be at least 1, not %s', worker_id,
      coalesce(lease_ms::text, 'null')));
  end if;
  update sheaf.workers w
  set expires_at = clock_timestamp() + heartbeat_worker.lease_ms * interval '1 millisecond',
    heartbeat_at = clock_timestamp(),
    last_timestamp_ms = greatest(w.last_timestamp_ms, heartbeat_worker.last_timestamp_ms)
  where w.worker_id = heartbeat_worker.worker_id and w.lease_token = heartbeat_worker.lease_token
    and w.expires_at >= clock_timestamp()
  returning w.expires_at into expires;
  if found then
    return expires;
  end if;
  select w.* into stored from sheaf.workers w where w.worker_id = heartbeat_worker.worker_id;
  if stored.lease_token is not distinct from lease_token then
    perform sheaf._fail('SH013', format('worker %s: lease %s expired at %s', worker_id, lease_token,
      to_char(stored.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
  end if;
  perform sheaf._fail('SH013', format('worker %s: lease %s was lost; the worker id is now %s', worker_id,
    lease_token, coalesce('leased by ' || quote_literal(stored.holder), 'free')));
end
$$;
