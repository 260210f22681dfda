-- sheaf 0021: a stable fast path. The PL/pgSQL bodies of next_id() and next_id(shard),
-- sheaf._plpgsql_next_id(), are declared stable: PL/pgSQL then evaluates their expressions under the
-- caller's snapshot instead of taking a new one and advancing the command counter before each (the
-- fast path reads no table, only sequences, which no snapshot governs). next_id() inlines them inside
-- coalesce() with the slow path as a second argument that is never evaluated, so the expression the
-- planner sees stays volatile: evaluated once per row wherever it appears, as before. Same state,
-- same test, same slow path, same proof (docs/sql/postgres.md). The tail re-bakes.
-- Written by scripts/sql-version.mjs from steps/0021_head.sql, routines/_bake.sql and
-- steps/0021_tail.sql.
-- Needs: 0001-0020. PostgreSQL 13+ (or PGlite); no superuser, no extension.
-- sheaf:break

-- sheaf._bake(): (re)creates every routine whose body holds the layout's constants, from the
-- templates below, filled in by sheaf._render(). configure(), add_shard(), bind_node(), install()
-- and a change of path call it. These routines are defined here and nowhere else under routines/:
--   sheaf._open_block(n integer)
--   sheaf._next_block()
--   sheaf._plpgsql_next_id()
--   sheaf._plpgsql_next_id(shard integer)
--   sheaf.next_id()
--   sheaf.next_id(shard integer)
--   sheaf.next_ids(n integer, shard integer)
--   sheaf.next_id_durable(shard integer)
--   sheaf.next_ids_durable(n integer, shard integer)
--   sheaf.encode_id(created_at timestamptz, shard_id integer, sequence integer)
--   sheaf.decode_id(id bigint)
--   sheaf._tick(at timestamptz)
--   sheaf.id_floor(at timestamptz)
--   sheaf.id_ceiling(at timestamptz)
--   sheaf._test_pause()     (test installs only)
--   sheaf._test_reset()     (test installs only)
--   sheaf._native_anchor()  (the native path, chosen by a superuser, only)

create or replace function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
  native boolean := coalesce(s.native, false);
  -- The lead bound: no block opens further ahead of the clock (a batch of 1,000,000 ids fits), and
  -- the clock difference between an old and a new primary the rebase allows for.
  max_lead_ms bigint := greatest(2000, 2 * ceil(1000000.0 / (1::bigint << s.sequence_bits))::bigint);
  skew_ms bigint := 1000;
  logical integer[] := array(select l.shard_id from sheaf.logical_shards l order by 1);
  fresh text := 't <= u and (t & {shard_mask}) = {shard_field} and {clock_at} < {tick_end}';
  slow text;
  retry text := 'if n = 1 then
          u := pg_sequence_last_value(''sheaf.live_block'');
          t := nextval(''sheaf.counter'');
          if t <= u and (t & {shard_mask}) = {shard_field} and {clock_at} < {tick_end} then
            return t;
          end if;
        end if;';
begin
  if native and to_regprocedure('sheaf._native_next_id()') is null then
    perform sheaf._fail('SH022', 'the native path is chosen but the extension sheaf_native is not installed: '
      'create it (sheaf install --native) or choose PL/pgSQL (sheaf install --no-native)');
  end if;

  -- The fast path (PL/pgSQL; docs/native.md for the C one): no lock, no wait, runs as the caller. A
  -- value is accepted when it is at most the last id of the live block read before it was taken,
  -- carries this database's shard, and the clock has not passed its millisecond. Stable for
  -- PL/pgSQL's sake only (version 21): PL/pgSQL takes a new snapshot and advances the command counter
  -- before every expression of a volatile function, and the fast path reads no table. The planner
  -- never sees it as stable: next_id() wraps it in a volatile expression (below).
  execute sheaf._render(replace($f$
    create or replace function sheaf._plpgsql_next_id() returns bigint
    language plpgsql stable as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.live_block');
      t bigint := nextval('sheaf.counter');
    begin
      if {fresh} then
        return t;
      end if;
      return sheaf._next_block();
    end
    $body$
  $f$, '{fresh}', fresh), s);
  execute sheaf._render(replace(replace($f$
    create or replace function sheaf._plpgsql_next_id(shard integer) returns bigint
    language plpgsql stable as $body$
    declare
      u bigint := pg_sequence_last_value('sheaf.live_block');
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

  -- The slow path (docs/sql/postgres.md, "How next_id works"), rendered twice: _open_block(n) for
  -- the owner and next_ids (security definer), and _next_block() for next_id(), where n is 1.
  slow := $f$
    create or replace function {signature} returns bigint
    language plpgsql volatile security definer set search_path = pg_catalog, pg_temp
    set lock_timeout = '5ms' as $body$
    declare
      {n_declaration}
      u bigint;
      t bigint;
      now_tick bigint;
      first_tick bigint;
      last_tick bigint;
      opened_at bigint;
      allowance bigint;
      was_allowed bigint;
      secret bytea := (select l.secret from sheaf.lock_secret l);
      epoch bigint;
      lock_id bigint;
      verified boolean := false;
      legacy boolean := false;
      holders text;
      got boolean;
      deadline timestamptz := clock_timestamp() + interval '2000 ms';
    begin
      if n is null or n < 0 or n > 1000000 then
        perform sheaf._fail('SH002', format('_open_block: n must be from 0 to 1000000 ids, not %s',
          coalesce(n::text, 'null')));
      end if;
      -- A copy of this database (a restore, a template, a logical sync) runs on another node: it
      -- must not issue this database's shard (docs/replication.md). Checked before anything moves.
      -- Reading the node (pg_control_system() reads a file) costs as much as the rest of the slow
      -- path, so it is read only when the counter's file differs from the one the node was last
      -- confirmed for: every copy has its own file, a relation rewritten in place is confirmed again.
      if pg_sequence_last_value('sheaf.node_mark') is distinct from
          hashtextextended(pg_relation_filepath('sheaf.counter'), 0) then
        if sheaf.node_identity() is distinct from {node_identity} then
          perform sheaf._fail('SH023', format('this database is a copy of %s (database_id %s, shard {shard}) '
            'made on node %s; it runs on node %s and may not issue that database''s ids. Give it a shard of its '
            'own: sheaf install --url <this database> --shard <N>; or, if the original is gone for good, '
            'confirm the move: sheaf install --url <this database> --moved',
            (select c.database_name from sheaf.settings c), (select c.database_id from sheaf.settings c),
            {node_identity}, sheaf.node_identity()));
        end if;
        perform setval('sheaf.node_mark', hashtextextended(pg_relation_filepath('sheaf.counter'), 0));
      end if;
      if secret is null then
        perform sheaf._fail('SH024', 'sheaf.lock_secret has no row: run sheaf install to repair it');
      end if;
      begin
        loop
          -- Never called (a copied schema without its sequences' values) reads null: as -1, which
          -- the first move of the epoch leaves.
          epoch := coalesce(pg_sequence_last_value('sheaf.lock_epoch'), -1);
          lock_id := ('x' || left(encode(sha256(secret || int8send(epoch)), 'hex'), 16))::bit(64)::bigint;
          got := pg_try_advisory_lock(lock_id);
          if not got then
            {retry}
            if clock_timestamp() >= deadline then
              select string_agg(l.pid::text, ', ' order by l.pid) into holders from pg_locks l
              where l.locktype = 'advisory' and l.granted and l.objsubid = 1
                and l.classid = ((lock_id >> 32) & 4294967295)::oid and l.objid = (lock_id & 4294967295)::oid;
              perform sheaf._fail('SH014', format('waited 2000 ms for the generator''s block lock, held by '
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
            verified := coalesce(pg_sequence_last_value('sheaf.lock_epoch'), -1) = epoch;
            exit when verified;
            -- The holder this session waited for moved the epoch: the key it holds now is stale.
            perform pg_advisory_unlock(lock_id);
            {retry}
            if clock_timestamp() >= deadline then
              perform sheaf._fail('SH014', 'waited 2000 ms for the generator''s block lock: its key kept changing');
            end if;
          end if;
        end loop;
        if clock_timestamp() < to_timestamp('{legacy_until}'::float8) then
          loop
            begin
              perform pg_advisory_lock({lock_key});
              legacy := true;
            exception when lock_not_available then
              -- The timeout can fire as the lock is granted: PostgreSQL then keeps it.
              legacy := exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
                and granted and classid = {lock_classid} and objid = {lock_objid} and objsubid = 1);
            end;
            exit when legacy;
            if clock_timestamp() >= deadline then
              perform sheaf._fail('SH014', 'waited 2000 ms for the block lock of versions 1 to 7, held by a '
                'session still in a function of before the upgrade');
            end if;
          end loop;
        end if;
        {test_pause}
        u := pg_sequence_last_value('sheaf.live_block');
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
        opened_at := pg_sequence_last_value('sheaf.opened_at');
        allowance := coalesce(pg_sequence_last_value('sheaf.step_allowance'), 0);
        was_allowed := allowance;
        -- The clock stepped back since the last block was opened: the ids stay ahead of it by that
        -- much more, and the lead bound with them, so ids keep coming at the clock's pace.
        if now_tick < opened_at then
          allowance := allowance + (opened_at - now_tick);
        end if;
        if u is null then
          -- The live block was reset (a crash restart or a promotion) or never set: start above
          -- anything the server before could have issued. It opened nothing beyond its clock plus the
          -- lead bound and its allowance, and its clock was within {skew_ms} ms of this one
          -- (docs/replication.md).
          first_tick := greatest(now_tick + {max_lead_ms} + {skew_ms} + allowance,
            (pg_sequence_last_value('sheaf.block') >> {time_shift}) + 1, (t >> {time_shift}) + 1);
          last_tick := first_tick + greatest(n - 1, 0) / {block_size};
          allowance := greatest(allowance, last_tick - now_tick - {max_lead_ms});
        else
          -- A session still in a function of before version 16 (an upgrade under load) publishes the
          -- blocks it opens in sheaf.block only: open above both, or such a block opens again.
          first_tick := (greatest(u, pg_sequence_last_value('sheaf.block')) >> {time_shift}) + 1;
          -- The last block is behind the clock. When it ended less than 8 ms ago, ids are being taken
          -- every few milliseconds: the block for next_id() opens 7 ms ahead and serves 8 ms instead
          -- of one, so sessions cross one block's opening where they crossed eight (version 20; docs/
          -- sql/postgres.md, "Hot blocks lead").
          if now_tick >= first_tick then
            first_tick := case when n = 1 and now_tick - first_tick < 8 then now_tick + 7 else now_tick end;
          end if;
          last_tick := first_tick + greatest(n - 1, 0) / {block_size};
          -- The lead bound: a burst or a batch that would run further ahead of the clock waits for
          -- it, up to the 2 s limit.
          loop
            exit when last_tick <= now_tick + {max_lead_ms} + allowance;
            if clock_timestamp() >= deadline then
              perform sheaf._fail('SH014', format('ids would run %s ms ahead of the clock, more than the generator '
                'may ({max_lead_ms} ms, and %s ms more while the clock is behind after stepping back); waited '
                '2000 ms for the clock', last_tick - now_tick, allowance));
            end if;
            perform pg_sleep(least(0.001 * (last_tick - now_tick - {max_lead_ms} - allowance), 0.05));
            opened_at := now_tick;
            now_tick := {clock};
            if now_tick < opened_at then
              allowance := allowance + (opened_at - now_tick);
            end if;
          end loop;
        end if;
        -- Caught up: the ids are within the plain bound again.
        if last_tick <= now_tick + {max_lead_ms} then
          allowance := 0;
        end if;
        if last_tick > {max_tick} then
          perform sheaf._fail('SH003', format('layout {layout} ran out of time at {run_out}; cannot issue ids at %s',
            sheaf._iso(last_tick + {epoch_ms})));
        end if;
        -- Order matters: move the counter first, publish the block after it. A counter value is only
        -- accepted up to the block published before it was taken (docs/sql/postgres.md). sheaf.block
        -- (which sessions still in a function of before version 16 read) is published first, the
        -- live block the fast path reads last.
        perform setval('sheaf.counter', ((last_tick << {time_shift}) | {shard_field}) + (n - 1) % {block_size} + 1,
          false);
        perform setval('sheaf.block', (last_tick << {time_shift}) | {shard_field} | {seq_mask});
        if allowance <> was_allowed then
          perform setval('sheaf.step_allowance', allowance);
        end if;
        perform setval('sheaf.opened_at', now_tick);
        perform setval('sheaf.live_block', (last_tick << {time_shift}) | {shard_field} | {seq_mask});
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
          if verified and coalesce(pg_sequence_last_value('sheaf.lock_epoch'), -1) = epoch then
            perform nextval('sheaf.lock_epoch');
          end if;
          perform pg_advisory_unlock(lock_id);
        end if;
        if exists (select from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
            and classid = {lock_classid} and objid = {lock_objid} and objsubid = 1) then
          perform pg_advisory_unlock({lock_key});
        end if;
        if sqlstate = '55P03' then
          perform sheaf._fail('SH014', format('the generator''s block lock was not free within 5 ms: %s',
            sqlerrm));
        end if;
        raise;
      end;
    end
    $body$
  $f$;
  slow := replace(replace(slow, '{retry}', retry),
    -- The epoch moves first, so the key is stale before anyone else can take it.
    '{release}', 'perform nextval(''sheaf.lock_epoch'');
        perform pg_advisory_unlock(lock_id);
        if legacy then
          perform pg_advisory_unlock({lock_key});
        end if;');
  slow := replace(replace(replace(replace(slow,
    '{legacy_until}', coalesce((select extract(epoch from l.legacy_until)::text from sheaf.lock_secret l),
      '-Infinity')),
    '{node_identity}', quote_nullable(s.node_identity)),
    '{max_lead_ms}', max_lead_ms::text),
    '{skew_ms}', skew_ms::text);
  execute sheaf._render(replace(replace(slow, '{signature}', 'sheaf._open_block(n integer)'),
    '{n_declaration}', ''), s);
  execute sheaf._render(replace(replace(slow, '{signature}', 'sheaf._next_block()'),
    '{n_declaration}', 'n constant integer := 1;'), s);

  -- Security definer: the caller reaches the batch reservation only through here, which hands every
  -- reserved id out.
  execute sheaf._render(replace($f$
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

  -- The tick (ms since the epoch) of a time the layout can encode. 'infinity' and '-infinity' have
  -- none (tick stays null) and are named as PostgreSQL writes them.
  execute sheaf._render($f$
    create or replace function sheaf._tick(at timestamptz) returns bigint
    language plpgsql immutable strict as $body$
    declare
      tick bigint := case when isfinite(at) then floor(extract(epoch from at) * 1000)::bigint - {epoch_ms} end;
    begin
      if tick < 0 or at = '-infinity' then
        perform sheaf._fail('SH004', format('time %s is before the epoch {epoch_iso} of layout {layout}',
          coalesce(sheaf._iso(tick + {epoch_ms}), at::text)));
      end if;
      if tick > {max_tick} or at = 'infinity' then
        perform sheaf._fail('SH003', format('time %s is after {run_out}, the last instant layout {layout} can encode',
          coalesce(sheaf._iso(tick + {epoch_ms}), at::text)));
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
  -- Test installs only: moves the state back so the next block opens at the (test) clock, for tests
  -- that an earlier test left running ahead of it. The last block ends 9 ms before the clock, long
  -- enough ago that the next one is not hot (version 20). Not safe while other sessions generate ids, so it
  -- never exists in a production install. The records stay at or above 0: the layout stays locked.
  if s.test_clock then
    execute sheaf._render($f$
      create or replace function sheaf._test_reset() returns void
      language plpgsql volatile as $body$
      begin
        perform setval('sheaf.counter', 0, false);
        if pg_sequence_last_value('sheaf.block') >= 0 then
          perform setval('sheaf.block', (greatest({clock} - 9, 0) << {time_shift}) | {shard_field} | {seq_mask});
          perform setval('sheaf.live_block', (greatest({clock} - 9, 0) << {time_shift}) | {shard_field} | {seq_mask});
          perform setval('sheaf.opened_at', greatest({clock} - 9, 0));
          perform setval('sheaf.step_allowance', 0);
        end if;
      end
      $body$
    $f$, s);
  else
    drop function if exists sheaf._test_reset();
  end if;

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

  -- next_id() and next_id(shard), the entry points (docs/native.md). On the native path, installed
  -- by a superuser, they are the C functions themselves; otherwise language sql wrappers that the
  -- caller's query inlines: BEGIN ATOMIC bodies, stored parsed, where the server has them (14+).
  -- Only their language between sql and c changes, never to or from PL/pgSQL: a statement running
  -- when it changes keeps the body it inlined or the C function it called.
  if native and (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    create or replace function sheaf.next_id() returns bigint
    language c volatile as '$libdir/sheaf_native', 'sheaf_native_next_id';
    create or replace function sheaf.next_id(shard integer) returns bigint
    language c volatile as '$libdir/sheaf_native', 'sheaf_native_next_id_shard';
    -- Never called: its body records a dependency on the extension's functions, so the extension
    -- cannot be dropped while the native path is chosen.
    execute 'create or replace function sheaf._native_anchor() returns bigint language sql volatile
      begin atomic select sheaf._native_next_id() + sheaf._native_next_id(0); end';
    revoke all on function sheaf._native_anchor() from public;
  else
    drop function if exists sheaf._native_anchor();
    if native then
      -- A BEGIN ATOMIC body records its dependency, so the extension cannot be dropped while
      -- next_id() calls it.
      execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
        begin atomic select sheaf._native_next_id(); end';
      execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
        begin atomic select sheaf._native_next_id(shard); end';
    -- The PL/pgSQL bodies are stable (above); the inlined expression must stay volatile, or the
    -- planner could evaluate it once for many rows (an index condition, say). coalesce() never
    -- evaluates its second argument, since the fast path never returns null; the volatile call there
    -- is what keeps the expression volatile, at no cost per call.
    elsif current_setting('server_version_num')::integer >= 140000 then
      execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
        begin atomic select coalesce(sheaf._plpgsql_next_id(), sheaf._next_block()); end';
      execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
        begin atomic select coalesce(sheaf._plpgsql_next_id(shard), sheaf._next_block()); end';
    else
      -- A quoted body: PostgreSQL 13 has no BEGIN ATOMIC.
      execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
        as ''select coalesce(sheaf._plpgsql_next_id(), sheaf._next_block())''';
      execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
        as ''select coalesce(sheaf._plpgsql_next_id(shard), sheaf._next_block())''';
    end if;
  end if;
  perform sheaf._grant_native();

  -- Functions are executable by PUBLIC when created; sheaf's never are (docs/security.md).
  revoke all on all functions in schema sheaf from public;
end
$bake$;
-- sheaf:break

select sheaf._bake();
