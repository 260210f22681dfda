-- sheaf 0003: sheaf._bake() (re)creates the layout-dependent functions from templates, and
-- sheaf.configure() changes the shard and layout.
-- Needs: 0001, 0002. PostgreSQL 13+ (or PGlite).

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  -- The slow path: opens a new block under a session-level advisory lock and reserves `n` ids at
  -- its start, returning the first (n = 0 only moves the counter to a new block). It runs once per
  -- millisecond, per 2^seq_bits ids and per large batch. Never an xact lock: that one would be held
  -- until the caller commits. Security definer: callers need no right to setval the sequences.
  execute sheaf._render($f$
    create or replace function sheaf._open_block(n integer) returns bigint
    language plpgsql volatile security definer set search_path = pg_catalog, pg_temp as $body$
    declare
      u bigint;
      t bigint;
      now_tick bigint;
      first_tick bigint;
      last_tick bigint;
    begin
      begin
        if not pg_try_advisory_lock({lock_key}) then
          -- Another session is opening a block; once it is published, its ids are as good as any.
          if n = 1 then
            u := pg_sequence_last_value('sheaf.block');
            t := nextval('sheaf.counter');
            if t <= u and t >> {time_shift} >= {clock} then
              return t;
            end if;
          end if;
          perform pg_advisory_lock({lock_key});
        end if;
        {test_pause}
        u := pg_sequence_last_value('sheaf.block');
        t := nextval('sheaf.counter');
        now_tick := {clock};
        -- Another session opened a fresh block while this one waited for the lock: take from it.
        if n = 1 and t <= u and t >> {time_shift} >= now_tick then
          perform pg_advisory_unlock({lock_key});
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
        perform pg_advisory_unlock({lock_key});
        return (first_tick << {time_shift}) | {shard_field};
      exception when query_canceled or others then
        -- `others` does not catch a cancel; a lock left behind would stall every other session.
        -- The cancel may have come while waiting for the lock, so release only a lock we hold.
        if exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
            and classid = {lock_classid} and objid = {lock_objid} and objsubid = 1) then
          perform pg_advisory_unlock({lock_key});
        end if;
        raise;
      end;
    end
    $body$
  $f$, s);

  -- The hot path, once per id: no lock and no wait. The counter's values are finished ids of the
  -- configured shard; one is accepted when it is at most the last id of the block published before
  -- it was taken and the clock has not passed its millisecond.
  execute sheaf._render($f$
    create or replace function sheaf.next_id() returns bigint
    language plpgsql volatile as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.block');
      t bigint := nextval('sheaf.counter');
    begin
      if t <= u and t >> {time_shift} >= {clock} then
        return t;
      end if;
      return sheaf._open_block(1);
    end
    $body$
  $f$, s);

  -- Another shard's id: the same (time, sequence) with the shard field replaced. All shards of the
  -- database share the counter, so the pair is unique whatever the shard.
  execute sheaf._render($f$
    create or replace function sheaf.next_id(shard integer) returns bigint
    language plpgsql volatile as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.block');
      t bigint := nextval('sheaf.counter');
    begin
      {check_shard}
      if t > u or t >> {time_shift} < {clock} then
        t := sheaf._open_block(1);
      end if;
      return (t & {shard_clear}) | (shard::bigint << {seq_bits});
    end
    $body$
  $f$, s);

  -- Batches of at least half a block reserve a run of counter values under one lock; smaller ones
  -- take ids one by one, so that frequent small batches do not push the ids ahead of the clock.
  execute sheaf._render($f$
    create or replace function sheaf.next_ids(n integer, shard integer default {shard})
    returns setof bigint language plpgsql volatile rows 1000 as $body$
    declare
      first_tick bigint;
    begin
      if n is null or n < 1 then
        perform sheaf._fail('SH002', format('n must be a positive number of ids, not %s', coalesce(n::text, 'null')));
      end if;
      {check_shard}
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
  $f$, s);

  -- Ids that leave the database (returned to a client rather than inserted) must survive a crash.
  -- Sequence state is WAL-logged ahead of use but only flushed by a commit that wrote WAL itself;
  -- a transactional logical message is such a write, needs no privilege, and is ignored by
  -- everything but logical decoding.
  execute sheaf._render($f$
    create or replace function sheaf.next_id_durable(shard integer default {shard}) returns bigint
    language plpgsql volatile as $body$
    begin
      perform pg_logical_emit_message(true, 'sheaf', '');
      return sheaf.next_id(shard);
    end
    $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf.next_ids_durable(n integer, shard integer default {shard})
    returns setof bigint language plpgsql volatile rows 1000 as $body$
    begin
      perform pg_logical_emit_message(true, 'sheaf', '');
      return query select sheaf.next_ids(n, shard);
    end
    $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf.encode_id(created_at timestamptz, shard_id integer, sequence integer)
    returns bigint language plpgsql immutable strict as $body$
    begin
      if shard_id < 0 or shard_id > {max_shard} then
        perform sheaf._fail('SH001', format('shard %s does not fit {shard_bits} shard bits (max {max_shard})', shard_id));
      end if;
      if sequence < 0 or sequence > {seq_mask} then
        perform sheaf._fail('SH020', format('sequence %s does not fit {seq_bits} sequence bits (max {seq_mask})',
          sequence));
      end if;
      return (sheaf._tick(created_at) << {time_shift}) | (shard_id::bigint << {seq_bits}) | sequence;
    end
    $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf.decode_id(id bigint, out created_at timestamptz, out shard_id integer,
      out sequence integer)
    language plpgsql immutable strict as $body$
    begin
      if id < 0 or id > {max_id} then
        perform sheaf._fail('SH009', format('id %s is outside layout {layout} (0 to {max_id})', id));
      end if;
      created_at := timestamptz 'epoch' + ((id >> {time_shift}) + {epoch_ms}) * interval '1 millisecond';
      shard_id := (id >> {seq_bits}) & {max_shard};
      sequence := id & {seq_mask};
    end
    $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf._tick(at timestamptz) returns bigint
    language plpgsql immutable strict as $body$
    declare
      tick bigint := floor(extract(epoch from at) * 1000)::bigint - {epoch_ms};
    begin
      if tick < 0 then
        perform sheaf._fail('SH004', format('time %s is before the epoch {epoch_iso} of layout {layout}',
          sheaf._iso(tick + {epoch_ms})));
      end if;
      if tick > {max_tick} then
        perform sheaf._fail('SH003', format('time %s is after {run_out}, the last instant layout {layout} can encode',
          sheaf._iso(tick + {epoch_ms})));
      end if;
      return tick;
    end
    $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf.id_floor(at timestamptz) returns bigint
    language sql immutable strict as $body$ select sheaf._tick(at) << {time_shift} $body$
  $f$, s);

  execute sheaf._render($f$
    create or replace function sheaf.id_ceiling(at timestamptz) returns bigint
    language sql immutable strict as $body$ select (sheaf._tick(at) << {time_shift}) | {low_mask} $body$
  $f$, s);
end
$bake$;
-- sheaf:break

-- Sets the shard (and the layout, until the first id was issued) and re-bakes the functions.
create function sheaf.configure(
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
  existing sheaf.settings := (select s from sheaf.settings s);
  layout_changes boolean := (existing.epoch_ms, existing.time_bits, existing.shard_bits, existing.sequence_bits)
    is distinct from (configure.epoch_ms, configure.time_bits, configure.shard_bits, configure.sequence_bits);
begin
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
  perform sheaf._bake();
  -- The counter holds finished ids of the configured shard: move it to a block of the new shard.
  if existing.shard_id <> configure.shard_id and pg_sequence_last_value('sheaf.block') >= 0 then
    perform sheaf._open_block(0);
  end if;
end
$$;
-- sheaf:break

select sheaf._bake();
