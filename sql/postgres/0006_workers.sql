-- sheaf 0006: worker-id leases for in-process snowflake generators. A generator leases the lowest
-- free worker id, heartbeats before the lease expires, and stops issuing when a heartbeat is refused;
-- every lease gets a fresh token, so a holder whose expired lease was taken over is fenced off.
-- Times are clock_timestamp(): a lease must not look younger because its transaction started earlier.
-- Needs: 0001, 0002 (sheaf._fail). PostgreSQL 13+ (gen_random_uuid() is core from 13) or PGlite.

-- A row stays after release: last_timestamp_ms tells the next holder where the previous one got to.
create table sheaf.workers (
  worker_id integer primary key check (worker_id >= 0),
  holder text,
  lease_token uuid,
  expires_at timestamptz,
  last_timestamp_ms bigint not null default 0 check (last_timestamp_ms >= 0),
  heartbeat_at timestamptz,
  created_at timestamptz not null default now()
);
-- sheaf:break

-- Takes the lowest worker id in [0, max_worker] that has no row, was released or has expired.
-- The insert … on conflict do update is the arbiter: of two callers after one id, the second waits
-- for the first's row, finds it no longer expired and tries the next candidate.
create function sheaf.lease_worker(holder text, lease_ms integer, max_worker integer)
returns table (worker_id integer, lease_token uuid, last_timestamp_ms bigint)
language plpgsql volatile rows 1 as $$
declare
  candidate integer;
begin
  if holder is null or holder = '' then
    perform sheaf._fail('SH002', format('worker holder must be non-empty text, not %s',
      coalesce(quote_literal(holder), 'null')));
  end if;
  if lease_ms is null or lease_ms < 1 then
    perform sheaf._fail('SH002', format('lease_ms must be at least 1, not %s', coalesce(lease_ms::text, 'null')));
  end if;
  if max_worker is null or max_worker < 0 then
    perform sheaf._fail('SH002', format('max_worker must be 0 or more, not %s', coalesce(max_worker::text, 'null')));
  end if;
  loop
    select min(c.id) into candidate from (
      select 0 as id where not exists (select from sheaf.workers w where w.worker_id = 0)
      union all
      select w.worker_id + 1 from sheaf.workers w
      where w.worker_id < lease_worker.max_worker
        and not exists (select from sheaf.workers x where x.worker_id = w.worker_id + 1)
      union all
      select w.worker_id from sheaf.workers w
      where w.worker_id <= lease_worker.max_worker and (w.expires_at is null or w.expires_at < clock_timestamp())
    ) c;
    if candidate is null then
      perform sheaf._fail('SH012', format('all %s worker ids from 0 to %s are leased; holder %s got none',
        max_worker::bigint + 1, max_worker, quote_literal(holder)));
    end if;
    return query
      insert into sheaf.workers as w (worker_id, holder, lease_token, expires_at, heartbeat_at)
      values (candidate, lease_worker.holder, gen_random_uuid(),
        clock_timestamp() + lease_worker.lease_ms * interval '1 millisecond', clock_timestamp())
      on conflict on constraint workers_pkey do update
      set holder = excluded.holder, lease_token = excluded.lease_token, expires_at = excluded.expires_at,
        heartbeat_at = excluded.heartbeat_at
      where w.expires_at is null or w.expires_at < clock_timestamp()
      returning w.worker_id, w.lease_token, w.last_timestamp_ms;
    if found then
      return;
    end if;
    -- Another caller took the candidate since it was chosen: each retry means some lease succeeded.
  end loop;
end
$$;
-- sheaf:break

-- Extends a lease and records how far the holder's clock got. Raises SH013 when the lease was lost
-- (taken over, released or expired): the holder must stop issuing ids.
create function sheaf.heartbeat_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint,
  lease_ms integer) returns timestamptz
language plpgsql volatile as $$
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
-- sheaf:break

-- Frees a worker id and records the holder's final last_timestamp_ms. Returns false, changing nothing,
-- when the token no longer holds the id: releasing a lost lease is harmless.
create function sheaf.release_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint default null)
returns boolean
language plpgsql volatile as $$
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
