-- sheaf 0007: sheaf._open_block(n) and sheaf.next_ids(n) refuse a batch size outside 0 (1 for
-- next_ids) to 1,000,000 with SH002, and a test install gets sheaf._test_reset(). _open_block is
-- security definer and callable by every role: a negative n set the counter below its block (ids of
-- shard - 1), and a huge one pushed the state half an hour ahead per call. The cap keeps one call
-- within about a second of a shard's ids in the default layout.
-- sheaf._bake() becomes the 0003 version (renamed _bake_0003) followed by the templates below, so
-- every configure() re-creates the checked functions.
-- Needs: 0001–0003. PostgreSQL 13+ (or PGlite); no superuser, no extension.

alter function sheaf._bake() rename to _bake_0003;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  perform sheaf._bake_0003();

  -- As in 0003, with the argument checked before anything moves. n = 0 only moves the counter to a
  -- new block (configure, on a shard change).
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
      if n is null or n < 0 or n > 1000000 then
        perform sheaf._fail('SH002', format('_open_block: n must be from 0 to 1000000 ids, not %s',
          coalesce(n::text, 'null')));
      end if;
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

  execute sheaf._render($f$
    create or replace function sheaf.next_ids(n integer, shard integer default {shard})
    returns setof bigint language plpgsql volatile rows 1000 as $body$
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

  -- Test installs only: moves the state back so the next block opens at the (test) clock, for tests
  -- that an earlier test left running ahead of it. Not safe while other sessions generate ids, so it
  -- never exists in a production install. The block stays at or above 0: the layout stays locked.
  if s.test_clock then
    execute sheaf._render($f$
      create or replace function sheaf._test_reset() returns void
      language plpgsql volatile as $body$
      begin
        perform setval('sheaf.counter', 0, false);
        if pg_sequence_last_value('sheaf.block') >= 0 then
          perform setval('sheaf.block', (greatest({clock} - 1, 0) << {time_shift}) | {shard_field} | {seq_mask});
        end if;
      end
      $body$
    $f$, s);
  else
    drop function if exists sheaf._test_reset();
  end if;
end
$bake$;
-- sheaf:break

select sheaf._bake();
