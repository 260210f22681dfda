-- Leases the lowest worker id in [0, max_worker] that no database holds and whose lease is free
-- or expired.
create or replace function sheaf.lease_worker(holder text, lease_ms integer, max_worker integer)
returns table (worker_id integer, lease_token uuid, last_timestamp_ms bigint)
language plpgsql volatile rows 1 security definer set search_path = pg_catalog, pg_temp as $$
declare
  candidate integer;
begin
  perform sheaf._check_lease_args(holder, lease_ms);
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
      where w.kind = 'worker' and w.worker_id <= lease_worker.max_worker
        and (w.expires_at is null or w.expires_at < clock_timestamp())
    ) c;
    if candidate is null then
      perform sheaf._fail('SH012', format('all %s worker ids from 0 to %s are leased or held by databases; '
        'holder %s got none', max_worker::bigint + 1, max_worker, quote_literal(holder)));
    end if;
    return query select * from sheaf._take_worker(candidate, holder, lease_ms);
    if found then
      return;
    end if;
    -- Another caller took the candidate since it was chosen: each retry means some lease succeeded.
  end loop;
end
$$;
