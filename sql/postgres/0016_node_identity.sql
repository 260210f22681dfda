-- sheaf 0016: one node, one identity (docs/replication.md).
-- - A database's shard is bound to the node it runs on: sheaf.node_identity(), the server's
--   system_identifier and the database's oid, which no copy keeps (dump and restore, a template,
--   a logical sync, a replicated settings row). The slow path compares it with the identity baked
--   into it and refuses on a copy (SH023) before it moves anything; install() binds a copy to its
--   node with a shard of its own (a new database_id) or, when the original is gone, as moved
--   (sheaf.bind_node).
-- - The fast path takes ids from sheaf.live_block, a copy of the last block published that is an
--   unlogged sequence on PostgreSQL 15+: a crash restart and a promotion reset it, so the first id
--   after either goes through the slow path, which then starts above everything the old server
--   could have issued (the rebase), from sheaf.block (the durable record of the last block opened)
--   and the lead bound: no block opens more than 2 s (with the sheaf layout) ahead of the clock,
--   plus how far the clock stepped back under ids already ahead of it (sheaf.step_allowance), so
--   that after a step back ids continue above the last one. sheaf.block keeps its name and value:
--   renaming it would lock out every statement generating ids while an upgrade commits.
-- - Every wait of the slow path ends within its 2 s limit whatever state the sequences are in.
-- sheaf._bake() becomes the 0015 version (renamed _bake_0015) and then creates the slow path from
-- its one current definition below.
-- Needs: 0001-0015. PostgreSQL 13+ (or PGlite); no superuser, no extension.

-- The node this database runs on: '<system_identifier>/<database oid>'. A promoted physical standby
-- is the same node; a copy of the database is not. pg_control_system() is executable by every role;
-- where a service hides it, the database's oid alone is left.
create function sheaf.node_identity() returns text
language sql stable set search_path = pg_catalog, pg_temp as $$
  select coalesce(case when has_function_privilege('pg_catalog.pg_control_system()', 'execute')
      then (select c.system_identifier::text from pg_control_system() c) end, 'unknown')
    || '/' || (select d.oid::text from pg_database d where d.datname = current_database())
$$;
-- sheaf:break

-- The node the shard is bound to. A copy has the original's here.
alter table sheaf.settings add column node_identity text;
-- sheaf:break

update sheaf.settings set node_identity = sheaf.node_identity();
-- sheaf:break

-- Binds this database to the node it runs on. `new_database`: it is a copy (or a physical clone,
-- which no check can tell from its original) and becomes a database of its own: a new database_id
-- (registries see another database), and neither the original's logical shards nor its registry
-- record, which are the original's; the caller then configures a shard. Otherwise the database was
-- moved here and the original will never issue ids again: its live block is reset, so the next
-- block starts above anything the original could have issued after this copy was taken, as after a
-- crash. Owner only.
create function sheaf.bind_node(new_database boolean) returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
begin
  if new_database is null then
    perform sheaf._fail('SH002', 'bind_node needs new_database true (a copy with a shard of its own) or false '
      '(the database was moved), not null');
  end if;
  if new_database then
    delete from sheaf.logical_shards;
    update sheaf.settings set database_id = gen_random_uuid(), registry = null,
      database_name = current_database()
        || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '');
  else
    perform setval('sheaf.live_block', -1, false);
  end if;
  update sheaf.settings set node_identity = sheaf.node_identity();
end
$$;
-- sheaf:break

-- A hash of the counter's file path on the node the slow path last confirmed (owner only): a copy's
-- counter has another file, which sends the slow path to read the node again.
create sequence sheaf.node_mark as bigint minvalue -9223372036854775808 cache 1;
-- sheaf:break

-- The clock, in ms since the layout's epoch, when the last block was opened.
create sequence sheaf.opened_at as bigint minvalue -9223372036854775808 cache 1;
-- sheaf:break

-- How far, in ms, the clock stepped back under the ids while they were ahead of it: the lead bound
-- is that much larger until the clock has caught up with the ids (0 then).
create sequence sheaf.step_allowance as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

-- The block the fast path takes ids from: unlogged where PostgreSQL has unlogged sequences, so that
-- a crash restart or a promotion resets it to never-called (pg_sequence_last_value reads null).
do $$
begin
  execute format('create %s sequence sheaf.live_block as bigint minvalue -1 start -1 cache 1',
    case when current_setting('server_version_num')::integer >= 150000 then 'unlogged' else '' end);
end
$$;
-- sheaf:break

select setval('sheaf.live_block', pg_sequence_last_value('sheaf.block'))
where pg_sequence_last_value('sheaf.block') is not null;
-- sheaf:break

-- The roles that read the block for the fast path read the live one.
do $$
declare
  grantee text;
begin
  for grantee in
    select quote_ident(r.rolname) from pg_class c cross join lateral aclexplode(c.relacl) a
      join pg_roles r on r.oid = a.grantee
    where c.oid = 'sheaf.block'::regclass and a.grantee <> c.relowner and a.privilege_type = 'SELECT'
  loop
    execute format('grant select on sequence sheaf.live_block to %s', grantee);
  end loop;
end
$$;
-- sheaf:break

-- As in 0009, for a block never called (a schema copied without its sequences' values) too.
create or replace function sheaf._issued_until_ms() returns bigint
language sql stable as $$
  select case when coalesce(pg_sequence_last_value('sheaf.block'), -1) < 0 then 0
    else (pg_sequence_last_value('sheaf.block') >> (s.shard_bits + s.sequence_bits)) + s.epoch_ms end
  from sheaf.settings s
$$;
-- sheaf:break

-- Puts back what the generator needs when something removed it (a schema copied without its
-- sequences' values, a dropped sequence, a deleted row): the lock's secret and epoch, the
-- generator's sequences (never called: the next block is rebased above the counter and the clock),
-- an unlogged live block, and a settings row bound to this node, which install() then configures
-- with the shard it was given. Called by install(), before configure.
create function sheaf._repair() returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  name text := current_database() || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '');
  persistence text := case when current_setting('server_version_num')::integer >= 150000 then 'unlogged' else '' end;
begin
  if not exists (select from sheaf.lock_secret) then
    insert into sheaf.lock_secret (secret, legacy_until)
    values (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), '-infinity');
  end if;
  if pg_sequence_last_value('sheaf.lock_epoch') is null then
    perform setval('sheaf.lock_epoch', 0);
  end if;
  if to_regclass('sheaf.counter') is null then
    create sequence sheaf.counter as bigint minvalue 0 start 0 cache 1;
  end if;
  if to_regclass('sheaf.block') is null then
    create sequence sheaf.block as bigint minvalue -1 start -1 cache 1;
  end if;
  if to_regclass('sheaf.opened_at') is null then
    create sequence sheaf.opened_at as bigint minvalue -9223372036854775808 cache 1;
  end if;
  if to_regclass('sheaf.step_allowance') is null then
    create sequence sheaf.step_allowance as bigint minvalue 0 start 0 cache 1;
  end if;
  if to_regclass('sheaf.live_block') is null then
    execute format('create %s sequence sheaf.live_block as bigint minvalue -1 start -1 cache 1', persistence);
  end if;
  -- Installed before the server was upgraded to PostgreSQL 15 (pg_upgrade keeps relations as they
  -- are): make the live block unlogged. ALTER writes the value it finds as the one a crash resets
  -- to, so it must find never-called; the fast path meanwhile goes to the slow path, which rebases.
  if persistence = 'unlogged'
    and (select c.relpersistence from pg_class c where c.oid = 'sheaf.live_block'::regclass) = 'p' then
    perform setval('sheaf.live_block', -1, false);
    alter sequence sheaf.live_block set unlogged;
  end if;
  if not exists (select from sheaf.settings) then
    -- The database_id its own id space knows it by, if it claimed shards there under this name.
    insert into sheaf.settings (database_id, database_name, node_identity)
    values (coalesce((select w.database_id from sheaf.workers w where w.kind = 'database' and w.holder = name
        order by w.worker_id limit 1), gen_random_uuid()), name, sheaf.node_identity());
  end if;
end
$$;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0015;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
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
  perform sheaf._bake_0015();
  -- The fast path (PL/pgSQL; docs/native.md for the C one): no lock, no wait, runs as the caller. A
  -- value is accepted when it is at most the last id of the live block read before it was taken,
  -- carries this database's shard, and the clock has not passed its millisecond.
  execute sheaf._render_0013(replace($f$
    create or replace function sheaf._plpgsql_next_id() returns bigint
    language plpgsql volatile as $body$
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
  execute sheaf._render_0013(replace(replace($f$
    create or replace function sheaf._plpgsql_next_id(shard integer) returns bigint
    language plpgsql volatile as $body$
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
          first_tick := greatest(now_tick, (u >> {time_shift}) + 1);
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
  execute sheaf._render_0013(replace(replace(slow, '{signature}', 'sheaf._open_block(n integer)'),
    '{n_declaration}', ''), s);
  execute sheaf._render_0013(replace(replace(slow, '{signature}', 'sheaf._next_block()'),
    '{n_declaration}', 'n constant integer := 1;'), s);

  -- Test installs only: moves the state back so the next block opens at the (test) clock, for tests
  -- that an earlier test left running ahead of it. Not safe while other sessions generate ids, so it
  -- never exists in a production install. The records stay at or above 0: the layout stays locked.
  if s.test_clock then
    execute sheaf._render($f$
      create or replace function sheaf._test_reset() returns void
      language plpgsql volatile as $body$
      begin
        perform setval('sheaf.counter', 0, false);
        if pg_sequence_last_value('sheaf.block') >= 0 then
          perform setval('sheaf.block', (greatest({clock} - 1, 0) << {time_shift}) | {shard_field} | {seq_mask});
          perform setval('sheaf.live_block', (greatest({clock} - 1, 0) << {time_shift}) | {shard_field} | {seq_mask});
          perform setval('sheaf.opened_at', greatest({clock} - 1, 0));
          perform setval('sheaf.step_allowance', 0);
        end if;
      end
      $body$
    $f$, s);
  end if;
  revoke all on all functions in schema sheaf from public;
end
$bake$;
-- sheaf:break

select sheaf._bake();
-- sheaf:break

revoke all on all functions in schema sheaf from public;
