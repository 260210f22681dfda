-- Leases exactly the worker id `wanted`, or says who holds it (SH016).
create or replace function sheaf.lease_worker_id(holder text, lease_ms integer, wanted integer)
returns table (worker_id integer, lease_token uuid, last_timestamp_ms bigint)
language plpgsql volatile rows 1 security definer set search_path = pg_catalog, pg_temp as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
  w sheaf.workers;
begin
  perform sheaf._check_lease_args(holder, lease_ms);
  if wanted is null or wanted < 0 or wanted >= (1::bigint << s.shard_bits) then
    perform sheaf._fail('SH001', format('worker id %s does not fit %s shard bits (max %s)',
      coalesce(wanted::text, 'null'), s.shard_bits, (1::bigint << s.shard_bits) - 1));
  end if;
  return query select * from sheaf._take_worker(wanted, holder, lease_ms);
  if found then
    return;
  end if;
  select x.* into w from sheaf.workers x where x.worker_id = wanted;
  if w.kind = 'database' then
    perform sheaf._fail('SH016', format('worker id %s is the shard of database %s (%s)', wanted,
      quote_literal(w.holder), w.database_id));
  end if;
  perform sheaf._fail('SH016', format('worker id %s is leased by %s until %s', wanted, quote_literal(w.holder),
    to_char(w.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
end
$$;
