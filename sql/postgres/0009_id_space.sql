-- sheaf 0009: one id space. The shard field of an id is one namespace shared by database installs
-- (their configured and logical shards) and the worker ids of in-process generators, so each value
-- has one row in sheaf.workers, whose primary key decides between concurrent takers:
-- - kind 'worker': a worker-id lease, as before;
-- - kind 'database': the shard of the database `database_id` (this one, or another that registered
--   its shards here); `expires_at` is 'infinity' while the install that claimed it is unconfirmed.
-- configure() and add_shard() claim their shard here (SH016 when another holder has it) and a
-- shard change gives the old value back with the last millisecond it was issued at; lease_worker
-- skips database values, and lease_worker_id leases one named value or says who holds it.
-- A database whose shards are registered in another database (settings.registry) leases no worker
-- ids: they are leased from the registry, which alone knows every value taken (SH017).
-- Needs: 0001-0008. PostgreSQL 13+ (or PGlite); no superuser, no extension.

-- database_id names this database in every registry; an installer that registered it elsewhere
-- first passes the id it used in the setting sheaf.database_id.
alter table sheaf.settings
  add column database_id uuid not null
    default coalesce(nullif(current_setting('sheaf.database_id', true), '')::uuid, gen_random_uuid()),
  add column database_name text,
  add column registry text;
-- sheaf:break

update sheaf.settings
set database_name = current_database() || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '');
-- sheaf:break

alter table sheaf.settings alter column database_name set not null;
-- sheaf:break

alter table sheaf.workers
  add column kind text not null default 'worker' check (kind in ('worker', 'database')),
  add column database_id uuid,
  add constraint workers_database_check check ((kind = 'database') = (database_id is not null));
-- sheaf:break

-- Records that database `database_id`, described by `holder`, issues the ids of `shard_id`; returns
-- the last millisecond an earlier holder of the value recorded, which the caller's clock must have
-- passed. Idempotent for the same database. `pending`: the claim of an install not yet committed,
-- which a rerun of that install (same holder text) may take over, and which stays taken until the
-- install confirms it or an admin releases it. Refused (SH016, naming the holder) while another
-- database holds the value, a worker lease on it is live, or its ids were issued up to a later time.
create function sheaf.claim_shard(shard_id integer, database_id uuid, holder text, pending boolean default false)
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
-- sheaf:break

-- Gives a database's shard back to the id space, recording `last_ms`, the last millisecond its ids
-- were issued at: a worker that leases the value later starts above it. False, changing nothing,
-- when `database_id` does not hold the value.
create function sheaf.release_shard(shard_id integer, database_id uuid, last_ms bigint default 0) returns boolean
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
-- sheaf:break

-- The last millisecond the generator issued an id at (0 before the first): every id so far, of any
-- shard this database had, lies at or below it.
create function sheaf._issued_until_ms() returns bigint
language sql stable as $$
  select case when pg_sequence_last_value('sheaf.block') < 0 then 0
    else (pg_sequence_last_value('sheaf.block') >> (s.shard_bits + s.sequence_bits)) + s.epoch_ms end
  from sheaf.settings s
$$;
-- sheaf:break

-- Claims a shard for this database. One registered elsewhere takes a new shard only when its
-- installer registered it there first and says so in the transaction (set local
-- sheaf.registered_shard = 'N'); one it holds already needs nothing.
create function sheaf._claim_own_shard(shard_id integer) returns void
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  if exists (select from sheaf.workers w where w.worker_id = _claim_own_shard.shard_id and w.kind = 'database'
    and w.database_id = s.database_id and w.expires_at is null) then
    return;
  end if;
  if s.registry is not null and current_setting('sheaf.registered_shard', true) is distinct from shard_id::text then
    perform sheaf._fail('SH017', format('the shards of this database are registered in %s: register shard %s '
      'there first (install with its registry), then take it here', s.registry, shard_id));
  end if;
  perform sheaf.claim_shard(shard_id, s.database_id, s.database_name);
end
$$;
-- sheaf:break

-- As in 0003, with the shard claimed in the id space (SH016 when another holder has it; the whole
-- call is undone), and the old one given back, unless it is also a logical shard, with the last
-- millisecond it was issued at.
create or replace function sheaf.configure(
  shard_id integer,
  layout_name text default 'sheaf',
  epoch_ms bigint default 1704067200000,
  time_bits integer default 41,
  shard_bits integer default 12,
  sequence_bits integer default 10,
  test_clock boolean default false
) returns void
language plpgsql as $$
declare
  existing sheaf.settings;
  layout_changes boolean;
  issued_until bigint;
begin
  -- Two admins configuring or adding shards at once would re-create the same functions at once.
  perform pg_advisory_xact_lock(8316008180944039539);
  existing := (select s from sheaf.settings s);
  layout_changes := (existing.epoch_ms, existing.time_bits, existing.shard_bits, existing.sequence_bits)
    is distinct from (configure.epoch_ms, configure.time_bits, configure.shard_bits, configure.sequence_bits);
  issued_until := sheaf._issued_until_ms();
  if layout_name is null or layout_name !~ '^[a-z0-9_-]{1,40}$' then
    perform sheaf._fail('SH008', format('layout name "%s" must be 1 to 40 of a-z, 0-9, _ and -',
      coalesce(layout_name, 'null')));
  end if;
  if time_bits is null or shard_bits is null or sequence_bits is null or epoch_ms is null
    or time_bits < 1 or sequence_bits < 1 or shard_bits < 0 or time_bits + shard_bits + sequence_bits > 64
    or epoch_ms < 0 then
    perform sheaf._fail('SH008', format('layout %s is invalid: epoch %s, %s time + %s shard + %s sequence bits '
      '(time and sequence need at least 1 bit, 64 bits at most)', layout_name, epoch_ms, time_bits, shard_bits,
      sequence_bits));
  end if;
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), shard_bits, (1::bigint << shard_bits) - 1));
  end if;
  if layout_changes and pg_sequence_last_value('sheaf.block') >= 0 then
    perform sheaf._fail('SH005', format('cannot change layout %s to %s: ids were already issued with it',
      existing.layout_name, layout_name));
  end if;
  update sheaf.settings set
    shard_id = configure.shard_id, layout_name = configure.layout_name, epoch_ms = configure.epoch_ms,
    time_bits = configure.time_bits, shard_bits = configure.shard_bits, sequence_bits = configure.sequence_bits,
    test_clock = configure.test_clock, configured_at = now();
  perform sheaf._claim_own_shard(configure.shard_id);
  if existing.shard_id <> configure.shard_id
    and not exists (select from sheaf.logical_shards l where l.shard_id = existing.shard_id) then
    perform sheaf.release_shard(existing.shard_id, existing.database_id, issued_until);
  end if;
  perform sheaf._bake();
  -- The counter holds finished ids of the configured shard: move it to a block of the new shard.
  if existing.shard_id <> configure.shard_id and pg_sequence_last_value('sheaf.block') >= 0 then
    perform sheaf._open_block(0);
  end if;
end
$$;
-- sheaf:break

-- As in 0008, with the shard claimed in the id space (SH016 when another holder has it).
create or replace function sheaf.add_shard(shard_id integer) returns void
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << s.shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), s.shard_bits, (1::bigint << s.shard_bits) - 1));
  end if;
  -- Serialised with configure() and install: each re-creates the functions.
  perform pg_advisory_xact_lock(8316008180944039539);
  perform sheaf._claim_own_shard(add_shard.shard_id);
  insert into sheaf.logical_shards (shard_id) values (add_shard.shard_id) on conflict do nothing;
  perform sheaf._bake();
end
$$;
-- sheaf:break

-- Leases the lowest worker id in [0, max_worker] that no database holds and whose lease is free
-- or expired. As in 0006 otherwise.
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
-- sheaf:break

-- Leases exactly the worker id `wanted`, or says who holds it (SH016).
create function sheaf.lease_worker_id(holder text, lease_ms integer, wanted integer)
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
-- sheaf:break

-- Refuses a lease in a database registered elsewhere, and arguments a lease cannot take.
create function sheaf._check_lease_args(holder text, lease_ms integer) returns void
language plpgsql stable as $$
declare
  registry text := (select s.registry from sheaf.settings s);
begin
  if registry is not null then
    perform sheaf._fail('SH017', format('worker ids are leased from the registry of this database''s shards, %s, '
      'not here: give the generator an executor of that database', registry));
  end if;
  if holder is null or holder = '' then
    perform sheaf._fail('SH002', format('worker holder must be non-empty text, not %s',
      coalesce(quote_literal(holder), 'null')));
  end if;
  if lease_ms is null or lease_ms < 1 then
    perform sheaf._fail('SH002', format('lease_ms must be at least 1, not %s', coalesce(lease_ms::text, 'null')));
  end if;
end
$$;
-- sheaf:break

-- Takes `candidate` when it has no row, or a worker row whose lease is free or expired; no row
-- when another holder has it. The insert … on conflict do update is the arbiter between takers.
create function sheaf._take_worker(candidate integer, holder text, lease_ms integer)
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
-- sheaf:break

-- Every value this database issues is claimed: its configured shard, then its logical shards.
select sheaf._claim_own_shard(s.shard_id) from sheaf.settings s;
-- sheaf:break

select sheaf._claim_own_shard(l.shard_id) from sheaf.logical_shards l order by l.shard_id;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0008;
-- sheaf:break

-- As in 0008, then the slow path waits for the fixed key of versions 1-7 (taken for a minute after
-- an upgrade from them) as it waits for its own key: 5 ms at a time until its 2 s deadline. A
-- session still inside the old function when the upgrade committed can hold that key for more
-- than one step on a busy machine, which failed next_id() with SH014 at once.
create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  slow regprocedure;
  old text;
  patched text;
begin
  perform sheaf._bake_0008();
  foreach slow in array array['sheaf._open_block(integer)'::regprocedure, 'sheaf._next_block()'::regprocedure] loop
    old := pg_get_functiondef(slow);
    patched := regexp_replace(old, 'perform pg_advisory_lock\((\d+)\);\s+legacy := true;',
      'loop
            begin
              perform pg_advisory_lock(\1);
              legacy := true;
            exception when lock_not_available then
              -- The timeout can fire as the lock is granted: PostgreSQL then keeps it.
              legacy := exists (select from pg_locks where locktype = ''advisory'' and pid = pg_backend_pid()
                and granted and classid = ((\1::bigint >> 32) & 4294967295)::oid
                and objid = (\1::bigint & 4294967295)::oid and objsubid = 1);
            end;
            exit when legacy;
            if clock_timestamp() >= deadline then
              perform sheaf._fail(''SH014'', ''waited 2000 ms for the block lock of versions 1 to 7, held by a ''
                ''session still in a function of before the upgrade'');
            end if;
          end loop;');
    if patched = old then
      raise exception 'sheaf 0009: the slow path % has no legacy lock to patch', slow;
    end if;
    execute patched;
  end loop;
end
$bake$;
-- sheaf:break

select sheaf._bake();
-- sheaf:break

revoke all on all functions in schema sheaf from public;
