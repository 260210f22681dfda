-- Records that database `database_id`, described by `holder`, issues the ids of `shard_id`; returns
-- the last millisecond an earlier holder of the value recorded, which the caller's clock must have
-- passed. Idempotent for the same database. `pending`: the claim of an install not yet committed,
-- which a rerun of that install (same holder text) may take over, and which stays taken until the
-- install confirms it or an admin releases it. Refused (SH016, naming the holder) while another
-- database holds the value, a worker lease on it is live, or its ids were issued up to a later time.
create or replace function sheaf.claim_shard(shard_id integer, database_id uuid, holder text, pending boolean default false)
returns bigint
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
  w sheaf.workers;
  now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000)::bigint;
  mark timestamptz := case when pending then 'infinity'::timestamptz end;
  pending_row boolean;
begin
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << s.shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), s.shard_bits, (1::bigint << s.shard_bits) - 1));
  end if;
  if database_id is null or holder is null or holder = '' then
    perform sheaf._fail('SH002', format('claim_shard needs a database_id and a holder, not %s and %s',
      coalesce(database_id::text, 'null'), coalesce(quote_literal(holder), 'null')));
  end if;
  insert into sheaf.workers as x (worker_id, kind, database_id, holder, expires_at, heartbeat_at)
  values (claim_shard.shard_id, 'database', claim_shard.database_id, claim_shard.holder, mark, clock_timestamp())
  on conflict on constraint workers_pkey do nothing;
  if found then
    return 0;
  end if;
  select x.* into w from sheaf.workers x where x.worker_id = claim_shard.shard_id for update;
  pending_row := w.kind = 'database' and w.expires_at is not distinct from 'infinity';
  if w.kind = 'database' and w.database_id <> claim_shard.database_id
    and not (pending_row and w.holder = claim_shard.holder) then
    perform sheaf._fail('SH016', format('shard %s is held by database %s (%s)%s', shard_id, quote_literal(w.holder),
      w.database_id, case when pending_row then format(', whose install has not confirmed it since %s;'
        ' if that install never finished, release it with select sheaf.release_shard(%s, %L)',
        to_char(w.heartbeat_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), shard_id, w.database_id)
      else '' end));
  end if;
  if w.kind = 'worker' and w.expires_at >= clock_timestamp() then
    perform sheaf._fail('SH016', format('shard %s is leased by worker %s until %s: stop that generator or '
      'choose another shard', shard_id, quote_literal(w.holder),
      to_char(w.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
  end if;
  if w.kind = 'worker' and w.last_timestamp_ms >= now_ms then
    perform sheaf._fail('SH016', format('shard %s was issued by a worker up to %s, after this clock (%s): '
      'claim it after then or choose another shard', shard_id, sheaf._iso(w.last_timestamp_ms), sheaf._iso(now_ms)));
  end if;
  update sheaf.workers x
  set kind = 'database', database_id = claim_shard.database_id, holder = claim_shard.holder, lease_token = null,
    expires_at = case when w.kind = 'database' and w.database_id = claim_shard.database_id and w.expires_at is null
      then null else mark end,
    heartbeat_at = case when w.kind = 'database' then x.heartbeat_at else clock_timestamp() end
  where x.worker_id = claim_shard.shard_id;
  return w.last_timestamp_ms;
end
$$;
