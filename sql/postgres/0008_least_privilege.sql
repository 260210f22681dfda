-- sheaf 0008: least privilege. PUBLIC gets nothing; an application role gets what `sheaf grant` (or
-- install() for roles granted before) gives it, and no path it can reach hands out another shard's
-- ids, moves the state ahead of the clock faster than it takes ids, or lets anyone hold the
-- generator's lock:
-- - the slow path's session-level advisory lock is keyed by a secret and an epoch that moves every
--   time the lock is released: a key seen in pg_locks is stale by the time it is free, and every
--   wait is bounded (lock_timeout) and ends in SH014;
-- - the fast path checks the shard field of the value it hands out;
-- - next_id()'s slow path is sheaf._next_block(), which opens a block only when the current one is
--   used up or behind the clock; batches (sheaf._open_block(n)) are reachable only through
--   next_ids, which is security definer and hands the ids out;
-- - next_id(shard) and next_ids(n, shard) take only the configured shard and the logical shards
--   added with sheaf.add_shard() (SH015 otherwise);
-- - tickets, segments and worker leases go through security definer functions with a pinned
--   search_path, so an application needs no right on sheaf's tables and cannot read lease tokens;
-- - _test_pause exists in test installs only.
-- sheaf._bake() becomes the 0007 version (renamed _bake_0007) followed by the templates below.
-- Needs: 0001-0007. PostgreSQL 13+ (or PGlite); no superuser, no extension.

-- The slow path's lock key is derived from this secret, which only the owner can read (pg_proc
-- bodies are readable by every role, so it is never baked into a function). `legacy_until`: until
-- then, an opener also takes the fixed key of versions 1-7, which a session that entered the old
-- function just before an upgrade may still hold.
create table sheaf.lock_secret (
  singleton boolean primary key default true check (singleton),
  secret bytea not null check (length(secret) >= 16),
  legacy_until timestamptz not null
);
-- sheaf:break

insert into sheaf.lock_secret (secret, legacy_until)
select uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
  case when pg_sequence_last_value('sheaf.block') >= 0 then clock_timestamp() + interval '1 minute'
    else '-infinity' end;
-- sheaf:break

-- Moves each time the block lock is released by a session that held it for the current epoch.
create sequence sheaf.lock_epoch as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

select setval('sheaf.lock_epoch', 0);
-- sheaf:break

-- Shards this database issues ids for besides its configured one (next_id(shard), next_ids(n, shard)).
create table sheaf.logical_shards (
  shard_id integer primary key check (shard_id >= 0),
  added_at timestamptz not null default now()
);
-- sheaf:break

-- Lets next_id(shard) and next_ids(n, shard) issue ids of `shard_id` on this database. Keep every
-- shard on one database only: two databases issuing one shard issue the same ids.
create function sheaf.add_shard(shard_id integer) returns void
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << s.shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), s.shard_bits, (1::bigint << s.shard_bits) - 1));
  end if;
  insert into sheaf.logical_shards (shard_id) values (add_shard.shard_id) on conflict do nothing;
  perform sheaf._bake();
end
$$;
-- sheaf:break

-- Ends a lease as the holder saw it: frees the worker id and records the last millisecond actually
-- issued, which may be below the bound the heartbeats recorded (release_worker only raises it).
-- Returns false, changing nothing, when the token no longer holds the id.
create function sheaf.close_worker(worker_id integer, lease_token uuid, last_timestamp_ms bigint) returns boolean
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
-- sheaf:break

-- What an application calls runs as the owner with a fixed search_path: it needs no right on the
-- tables, and cannot read another holder's lease token. Admin functions stay invoker.
alter function sheaf.next_ticket(text) security definer set search_path = pg_catalog, pg_temp;
-- sheaf:break

alter function sheaf.alloc_segment(text, integer) security definer set search_path = pg_catalog, pg_temp;
-- sheaf:break

alter function sheaf.lease_worker(text, integer, integer) security definer set search_path = pg_catalog, pg_temp;
-- sheaf:break

alter function sheaf.heartbeat_worker(integer, uuid, bigint, integer)
  security definer set search_path = pg_catalog, pg_temp;
-- sheaf:break

alter function sheaf.release_worker(integer, uuid, bigint) security definer set search_path = pg_catalog, pg_temp;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0007;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
  logical integer[] := array(select l.shard_id from sheaf.logical_shards l order by 1);
  slow text;
  fresh text := 't <= u and t >> {time_shift} >= {clock} and (t & {shard_mask}) = {shard_field}';
  retry text;
begin
  perform sheaf._bake_0007();
  -- Sessions that find the lock taken (or their key stale) try the block the holder may have
  -- published before they wait: sessions crossing a millisecond together do not queue.
  retry := 'if n = 1 then
          u := pg_sequence_last_value(''sheaf.block'');
          t := nextval(''sheaf.counter'');
          if ' || fresh || ' then
            return t;
          end if;
        end if;';

  -- The slow path (docs/sql/postgres.md: "How next_id works"), rendered twice: _open_block(n) for
  -- the owner and next_ids (security definer), and _next_block() for next_id(), where n is 1: an
  -- application opens a block only when the current one is used up or behind the clock, and never
  -- reserves ids ahead.
  slow := replace(replace(replace(replace($f$
    create or replace function {signature} returns bigint
    language plpgsql volatile security definer set search_path = pg_catalog, pg_temp
    set lock_timeout = '{lock_step_ms}ms' as $body$
    declare
      {n_declaration}
      u bigint;
      t bigint;
      now_tick bigint;
      first_tick bigint;
      last_tick bigint;
      secret bytea := (select l.secret from sheaf.lock_secret l);
      epoch bigint;
      lock_id bigint;
      verified boolean := false;
      legacy boolean := false;
      holders text;
      got boolean;
      deadline timestamptz := clock_timestamp() + interval '{lock_wait_ms} ms';
    begin
      if n is null or n < 0 or n > 1000000 then
        perform sheaf._fail('SH002', format('_open_block: n must be from 0 to 1000000 ids, not %s',
          coalesce(n::text, 'null')));
      end if;
      begin
        loop
          epoch := pg_sequence_last_value('sheaf.lock_epoch');
          lock_id := ('x' || left(encode(sha256(secret || int8send(epoch)), 'hex'), 16))::bit(64)::bigint;
          got := pg_try_advisory_lock(lock_id);
          if not got then
            {retry}
            if clock_timestamp() >= deadline then
              select string_agg(l.pid::text, ', ' order by l.pid) into holders from pg_locks l
              where l.locktype = 'advisory' and l.granted and l.objsubid = 1
                and l.classid = ((lock_id >> 32) & 4294967295)::oid and l.objid = (lock_id & 4294967295)::oid;
              perform sheaf._fail('SH014', format('waited {lock_wait_ms} ms for the generator''s block lock, held by '
                'pid %s; if that session is not generating ids, end it (pg_terminate_backend)', coalesce(holders, '?')));
            end if;
            -- A few ms at a time (the function's lock_timeout): the key goes stale when its holder
            -- opens a block, and a session queued behind a stale key's taker would wait for ever.
            begin
              perform pg_advisory_lock(lock_id);
              got := true;
            exception when lock_not_available then
              -- The timeout can fire as the lock is granted: PostgreSQL then keeps it.
              got := exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
                and classid = ((lock_id >> 32) & 4294967295)::oid and objid = (lock_id & 4294967295)::oid
                and objsubid = 1);
            end;
          end if;
          if got then
            verified := pg_sequence_last_value('sheaf.lock_epoch') = epoch;
            exit when verified;
            -- The holder this session waited for moved the epoch: the key it holds now is stale.
            perform pg_advisory_unlock(lock_id);
          end if;
        end loop;
        if clock_timestamp() < to_timestamp('{legacy_until}'::float8) then
          perform pg_advisory_lock({lock_key});
          legacy := true;
        end if;
        {test_pause}
        u := pg_sequence_last_value('sheaf.block');
        t := nextval('sheaf.counter');
        now_tick := {clock};
        -- Another session opened a fresh block while this one waited for the lock: take from it.
        if n = 1 and t <= u and t >> {time_shift} >= now_tick and (t & {shard_mask}) = {shard_field} then
          {release}
          return t;
        end if;
        if now_tick < 0 then
          perform sheaf._fail('SH004', format('the clock (%s) is before the epoch {epoch_iso} of layout {layout}',
            sheaf._iso(now_tick + {epoch_ms})));
        end if;
        first_tick := greatest(now_tick, (u >> {time_shift}) + 1);
        last_tick := first_tick + greatest(n - 1, 0) / {block_size};
        if last_tick > {max_tick} then
          perform sheaf._fail('SH003', format('layout {layout} ran out of time at {run_out}; cannot issue ids at %s',
            sheaf._iso(last_tick + {epoch_ms})));
        end if;
        -- Order matters: move the counter first, publish the block second. A counter value is only
        -- accepted up to the block published before it was taken (docs/sql/postgres.md).
        perform setval('sheaf.counter', ((last_tick << {time_shift}) | {shard_field}) + (n - 1) % {block_size} + 1,
          false);
        perform setval('sheaf.block', (last_tick << {time_shift}) | {shard_field} | {seq_mask});
        {release}
        return (first_tick << {time_shift}) | {shard_field};
      exception when query_canceled or others then
        -- `others` does not catch a cancel; a lock left behind would stall every other session. The
        -- error may have come while waiting for a lock, so release only what this session holds, and
        -- move the epoch only when the key is the current one (moving it under another holder
        -- would let a third session in beside it).
        if exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
            and classid = ((lock_id >> 32) & 4294967295)::oid and objid = (lock_id & 4294967295)::oid
            and objsubid = 1) then
          -- Only the holder of the current epoch's key moves it, and only once: a cancel during
          -- the release may come after its move.
          if verified and pg_sequence_last_value('sheaf.lock_epoch') = epoch then
            perform nextval('sheaf.lock_epoch');
          end if;
          perform pg_advisory_unlock(lock_id);
        end if;
        if exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
            and classid = {lock_classid} and objid = {lock_objid} and objsubid = 1) then
          perform pg_advisory_unlock({lock_key});
        end if;
        if sqlstate = '55P03' then
          perform sheaf._fail('SH014', format('the generator''s block lock was not free within {lock_step_ms} ms: %s',
            sqlerrm));
        end if;
        raise;
      end;
    end
    $body$
  $f$, '{retry}', retry), '{lock_wait_ms}', '2000'), '{lock_step_ms}', '5'),
    -- The epoch moves first, so the key is stale before anyone else can take it.
    '{release}', 'perform nextval(''sheaf.lock_epoch'');
        perform pg_advisory_unlock(lock_id);
        if legacy then
          perform pg_advisory_unlock({lock_key});
        end if;');
  slow := replace(slow, '{legacy_until}', (select extract(epoch from l.legacy_until)::text from sheaf.lock_secret l));
  execute sheaf._render_0008(replace(replace(slow, '{signature}', 'sheaf._open_block(n integer)'),
    '{n_declaration}', ''), s);
  execute sheaf._render_0008(replace(replace(slow, '{signature}', 'sheaf._next_block()'),
    '{n_declaration}', 'n constant integer := 1;'), s);

  -- The hot path, once per id: no lock, no wait, runs as the caller. A value is accepted when it is
  -- at most the last id of the block published before it was taken, the clock has not passed its
  -- millisecond, and it carries this database's shard.
  execute sheaf._render_0008(replace($f$
    create or replace function sheaf.next_id() returns bigint
    language plpgsql volatile as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.block');
      t bigint := nextval('sheaf.counter');
    begin
      if {fresh} then
        return t;
      end if;
      return sheaf._next_block();
    end
    $body$
  $f$, '{fresh}', fresh), s);

  execute sheaf._render_0008(replace(replace($f$
    create or replace function sheaf.next_id(shard integer) returns bigint
    language plpgsql volatile as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.block');
      t bigint := nextval('sheaf.counter');
    begin
      {check_shard}
      {check_owned}
      if not ({fresh}) then
        t := sheaf._next_block();
      end if;
      return (t & {shard_clear}) | (shard::bigint << {seq_bits});
    end
    $body$
  $f$, '{fresh}', fresh), '{check_owned}', sheaf._owned_check(s, logical)), s);

  -- Security definer: the caller reaches the batch reservation only through here, which hands every
  -- reserved id out.
  execute sheaf._render_0008(replace($f$
    create or replace function sheaf.next_ids(n integer, shard integer default {shard})
    returns setof bigint language plpgsql volatile security definer set search_path = pg_catalog, pg_temp
    rows 1000 as $body$
    declare
      first_tick bigint;
    begin
      if n is null or n < 1 then
        perform sheaf._fail('SH002', format('n must be a positive number of ids, not %s', coalesce(n::text, 'null')));
      end if;
      if n > 1000000 then
        perform sheaf._fail('SH002', format('n must be at most 1000000 ids per call, not %s', n));
      end if;
      {check_shard}
      {check_owned}
      if n < {half_block} then
        return query select sheaf.next_id(shard) from generate_series(1, n);
        return;
      end if;
      first_tick := sheaf._open_block(n) >> {time_shift};
      return query
        select ((first_tick + i / {block_size}) << {time_shift}) | (shard::bigint << {seq_bits}) | (i % {block_size})
        from generate_series(0::bigint, n - 1) i;
    end
    $body$
  $f$, '{check_owned}', sheaf._owned_check(s, logical)), s);

  -- Test installs only: sleeps for `sheaf.test_pause_ms` inside the slow path's lock.
  if s.test_clock then
    create or replace function sheaf._test_pause() returns void
    language plpgsql volatile as $body$
    declare
      pause text := nullif(current_setting('sheaf.test_pause_ms', true), '');
    begin
      if pause is not null then
        perform pg_sleep(pause::numeric / 1000);
      end if;
    end
    $body$;
  else
    drop function if exists sheaf._test_pause();
  end if;

  -- Functions are executable by PUBLIC when created; sheaf's never are (docs/security.md).
  revoke all on all functions in schema sheaf from public;
end
$bake$;
-- sheaf:break

-- The check that a shard given to next_id(shard) / next_ids(n, shard) is one this database issues.
create function sheaf._owned_check(s sheaf.settings, logical integer[]) returns text
language sql immutable as $$
  select format('if shard <> %s%s then
        perform sheaf._fail(''SH015'', format(''shard %%s is not issued by this database (shard %s%s); '
      'add it with sheaf.add_shard(%%s) if no other database issues it'', shard, shard));
      end if;', s.shard_id,
    case when cardinality(logical) > 0 then format(' and shard <> all (%L::integer[])', logical) else '' end,
    s.shard_id,
    case when cardinality(logical) > 0 then ', logical shards ' || array_to_string(logical, ', ') else '' end)
$$;
-- sheaf:break

-- {shard_mask} is new in this version; every other placeholder is _render's.
create function sheaf._render_0008(template text, s sheaf.settings) returns text
language sql immutable as $$
  select sheaf._render(replace(template, '{shard_mask}',
    ((((1::bigint << s.shard_bits) - 1) << s.sequence_bits))::text), s)
$$;
-- sheaf:break

select sheaf._bake();
