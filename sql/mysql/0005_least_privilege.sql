-- sheaf 0005 (MySQL/MariaDB): least privilege. An account with EXECUTE alone cannot reconfigure
-- sheaf, the generator reads no test clock, and its session cache is checked against trusted state:
-- - sheaf_configure, sheaf_create_ticket and sheaf_create_segment run with their caller's privileges
--   (SQL SECURITY INVOKER): the caller needs rights on sheaf's tables, which an application account
--   does not get (docs/sql/mysql.md, Privileges);
-- - sheaf_next_id() reads the clock only from SYSDATE: a test install (install() with testClock)
--   replaces it with a copy whose claims read session variables (install/mysql-test-clock.ts);
-- - its fast path hands out a cached id only when the settings row and the clock vouch for it: the
--   configured shard, inside the layout, not a chunk's first id (only a claim hands those out), of
--   the current or a later millisecond, and in this database; it sets @sheaf_id_end from them.
--   @sheaf_id_until is written for triggers made before 0005 only. A claim checks the tick it got
--   against the clock, so a wrong @sheaf_id_tick costs one more claim, not an id behind the clock;
-- - sheaf_next_shard_ids takes the ids of a chunk its own first call checked without a function
--   call per id, and sheaf triggers made by sheafTriggerSql since 0005 do the same per statement
--   (@sheaf_id_stmt: the @@timestamp of the statement whose sheaf_next_id() call checked the cache).
-- - sheaf_next_shard_id(s) and sheaf_next_shard_ids(n, s) take only the configured shard and the
--   logical shards an admin added with sheaf_add_shard (30015 otherwise): another database may
--   issue any other shard;
-- - sheaf_close_worker ends a lease for its holder without an UPDATE of sheaf_workers by the app.
-- Needs: 0001-0004. MariaDB 10.3+ or MySQL 8.0+.

-- ALTER keeps each routine in place (no window without it); install() holds the install lock.
alter procedure sheaf_configure sql security invoker;
-- sheaf:break

alter procedure sheaf_create_ticket sql security invoker;
-- sheaf:break

alter procedure sheaf_create_segment sql security invoker;
-- sheaf:break

-- Replaced, not altered: MySQL has no `create or replace function`. Between the two statements an
-- insert through a sheaf trigger fails with error 1305 (no id is handed out wrong).
drop function if exists sheaf_next_id;
-- sheaf:break

-- The snowflake for the configured shard. The fast path, taken for all but one id per chunk,
-- takes @sheaf_id_next when the settings row and the clock vouch for it (see the header); the slow
-- path claims a new chunk: one AUTO_INCREMENT value of sheaf_chunks, after moving the counter
-- forward to the clock when it is behind. Chunks are 2^(sequence_bits - 2) ids, four per
-- millisecond; more claims in a millisecond borrow the next one instead of wrapping, and a clock
-- that steps back finds the counter ahead of it: ids continue above the last one issued.
create function sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  declare v_shard, v_time_bits, v_shard_bits, v_seq_bits, v_unit_bits, v_chunk_bits, v_low_bits integer;
  declare v_epoch, v_clock, v_now, v_end, v_last, v_max_tick, v_first_k, v_k, v_tick, v_base bigint;
  declare v_ahead, v_hot boolean;
  declare v_name varchar(40);
  -- The fast path is few statements: each costs about as much as the checks. The clock, unix ms,
  -- is computed inline (a stored function call costs about as much as an insert here) from SYSDATE,
  -- because NOW() is frozen for a whole statement. Text in the variable fails these checks: tested
  -- first in an IF condition, which converts it with a warning where a SET inside an INSERT would
  -- raise an error.
  if @sheaf_id_next between 1 and 9223372036854775807 and @sheaf_id_db = database() then
    -- The checks in one subquery, the cheapest read of the settings row from a function (SELECT …
    -- INTO costs twice as much): the end of the chunk when the cached id passes them, else NULL.
    -- A positive bigint's tick is within the sign bit's bound; the time bits' bound is checked here.
    set v_end = (select if(@sheaf_id_next & ((1 << greatest(sequence_bits - 2, 0)) - 1) <> 0
        and (@sheaf_id_next >> sequence_bits) & ((1 << shard_bits) - 1) = shard_id
        and @sheaf_id_next >> (shard_bits + sequence_bits)
          between floor(unix_timestamp(sysdate(3)) * 1000) - epoch_ms and (1 << time_bits) - 1,
        (@sheaf_id_next | ((1 << greatest(sequence_bits - 2, 0)) - 1)) + 1, null)
      from sheaf_settings where singleton = 1);
    if v_end is not null then
      set @sheaf_id_next = @sheaf_id_next + 1, @sheaf_id_end = v_end, @sheaf_id_stmt = @@timestamp;
      return @sheaf_id_next - 1;
    end if;
  end if;
  select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits
    into v_shard, v_name, v_epoch, v_time_bits, v_shard_bits, v_seq_bits
    from sheaf_settings where singleton = 1;
  -- The claim's clock: a test install rewrites this statement and nothing else.
  set v_clock = floor(unix_timestamp(sysdate(3)) * 1000);
  set v_now = v_clock - v_epoch, v_unit_bits = greatest(v_seq_bits - 2, 0), v_low_bits = v_shard_bits + v_seq_bits;
  set v_max_tick = least(if(v_time_bits >= 63, 9223372036854775807, (1 << v_time_bits) - 1),
    9223372036854775807 >> v_low_bits);
  if v_now < 0 then
    call sheaf__fail(30004, concat('sheaf: the clock (', sheaf__iso(v_now + v_epoch), ') is before the epoch of layout ',
      v_name));
  end if;
  set v_chunk_bits = v_seq_bits - v_unit_bits;
  -- A session whose last chunk is at or ahead of the clock (used up early: a burst, many sessions,
  -- a clock step back) expects the counter to be too: one insert claims. Otherwise it first moves
  -- the counter with an explicit value (a no-op when the counter is already past it) to the clock,
  -- or, when its last chunk ran out of time less than 8 ms ago (a hot session), 7 ms ahead of it:
  -- that chunk then lasts 8 ms instead of one, so a session inserting a row every few ms claims once
  -- per several rows, and ids run at most 7 ms ahead of the clock. These read @sheaf_id_tick, which
  -- the session can write: a claim behind the clock moves the counter and claims again. Explicit 0
  -- would mean "generate": nothing to move below 1.
  set v_last = if(@sheaf_id_db <=> database() and @sheaf_id_tick regexp '^[0-9]{1,18}$', @sheaf_id_tick, null);
  set v_ahead = coalesce(v_last >= v_now, false), v_hot = coalesce(v_last >= v_now - 8, false);
  claim: loop
    if not v_ahead then
      set v_first_k = (v_now + if(v_hot, 7, 0)) << v_chunk_bits;
      if v_first_k > 1 then
        insert ignore into sheaf_chunks (k, s) values (v_first_k - 1, connection_id());
        delete from sheaf_chunks where k = v_first_k - 1 and s = connection_id();
      end if;
    end if;
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    set v_tick = v_k >> v_chunk_bits;
    if v_tick >= v_now then
      leave claim;
    end if;
    set v_ahead = false;
  end loop;
  if v_tick > v_max_tick then
    call sheaf__fail(30003, concat('sheaf: layout ', v_name, ' ran out of time at ',
      sheaf__iso(v_max_tick + v_epoch)));
  end if;
  set v_base = (v_tick << v_low_bits) | (v_shard << v_seq_bits)
    | ((v_k & ((1 << v_chunk_bits) - 1)) << v_unit_bits);
  -- @sheaf_id_until, the end of the chunk's millisecond in unix seconds, is for triggers made before 0005.
  set @sheaf_id_next = v_base + 1, @sheaf_id_end = v_base + (1 << v_unit_bits), @sheaf_id_tick = v_tick,
    @sheaf_id_db = database(), @sheaf_id_until = (v_tick + v_epoch + 1) / 1000, @sheaf_id_stmt = @@timestamp;
  return v_base;
end;
-- sheaf:break

-- Shards this database issues ids for besides its configured one (sheaf_next_shard_id(s)).
create table sheaf_logical_shards (
  shard_id integer not null primary key check (shard_id >= 0),
  added_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

-- Lets sheaf_next_shard_id(s) and sheaf_next_shard_ids(n, s) issue ids of p_shard here. Runs as its
-- caller: an admin's rights on sheaf_logical_shards, never an application's. Give each shard to one
-- database only: two databases issuing one shard issue the same ids.
create procedure sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  insert ignore into sheaf_logical_shards (shard_id) values (p_shard);
end;
-- sheaf:break

-- Refuses a shard outside the layout (30001) or one this database does not issue (30015).
create procedure sheaf__check_owned_shard(in p_shard integer)
  not deterministic reads sql data
begin
  declare v_shard, v_bits integer;
  select shard_id, shard_bits into v_shard, v_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_bits);
  if p_shard <> v_shard and not exists (select 1 from sheaf_logical_shards where shard_id = p_shard) then
    call sheaf__fail(30015, concat('sheaf: shard ', p_shard, ' is not issued by this database (shard ', v_shard,
      '); add it with sheaf_add_shard(', p_shard, ') if no other database issues it'));
  end if;
end;
-- sheaf:break

drop function if exists sheaf_next_shard_id;
-- sheaf:break

-- A snowflake for a logical shard of this database: the counter is shared by all its shards, so
-- replacing the shard field of sheaf_next_id() keeps ids unique.
create function sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  call sheaf__check_owned_shard(p_shard);
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  return (sheaf_next_id() & ~(((1 << v_shard_bits) - 1) << v_seq_bits)) | (p_shard << v_seq_bits);
end;
-- sheaf:break

-- Ends a lease as its holder saw it: frees the worker id and records the last millisecond actually
-- issued, which may be below the bound the heartbeats recorded (sheaf_release_worker only raises
-- it). False, changing nothing, when the token no longer holds the id.
create function sheaf_close_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
begin
  if p_worker_id is null or p_token is null then
    call sheaf__fail(30002, concat('sheaf: close needs a worker_id and a lease_token, not ',
      coalesce(p_worker_id, 'null'), ' and ', coalesce(p_token, 'null')));
  end if;
  if p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': last_timestamp_ms must be 0 or more, not ',
      coalesce(p_last_ms, 'null')));
  end if;
  update sheaf_workers set holder = null, lease_token = null, expires_ms = null, last_timestamp_ms = p_last_ms
    where worker_id = p_worker_id and lease_token = p_token;
  return row_count() = 1;
end;
-- sheaf:break

-- Replaced for speed: a function call per chunk instead of one per id. The statement's first id
-- comes from sheaf_next_id(), which checks the session's chunk against the settings row or claims
-- one, and sets @sheaf_id_end from it; the rest of each chunk is taken inline. Inside this one
-- statement nothing but it writes the variables.
drop procedure if exists sheaf_next_shard_ids;
-- sheaf:break

-- n ids as a result set of one `id` column, in issuing order (for ORMs and batch inserts), on the
-- configured shard or on p_shard (not null). Crash-durable in autocommit: the session's cached chunk
-- is dropped first, so the statement claims at least one chunk itself (an InnoDB write) and its
-- commit flushes the redo log up to that claim, which covers every chunk claimed before it in any
-- session. The ids reach the caller after that commit.
create procedure sheaf_next_shard_ids(in p_n integer, in p_shard integer)
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  declare v_mask bigint unsigned;
  declare v_unit_mask bigint;
  if p_n is null or p_n < 1 or p_n > 1000000 then
    call sheaf__fail(30002, concat('sheaf: n must be 1 to 1000000 ids, not ', coalesce(p_n, 'null')));
  end if;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  if p_shard is not null then
    call sheaf__check_owned_shard(p_shard);
  end if;
  set @sheaf_id_next = null;
  -- Keeps every field but the shard, which p_shard replaces when given.
  set v_mask = if(p_shard is null, ~0, ~(((1 << v_shard_bits) - 1) << v_seq_bits));
  set v_unit_mask = (1 << greatest(v_seq_bits - 2, 0)) - 1;
  -- Inline while the next id is inside the chunk (not the first of the next one). A statement
  -- reads a user variable it does not assign once, at its start (so not @sheaf_id_end), and types
  -- the ones it does then too, when @sheaf_id_next is NULL (text): the casts keep the arithmetic in
  -- integers once sheaf_next_id() has stored one there.
  select (if(cast(@sheaf_id_next as signed) & v_unit_mask <> 0,
        (@sheaf_id_next := cast(@sheaf_id_next as signed) + 1) - 1, sheaf_next_id()) & v_mask)
      | (coalesce(p_shard, 0) << v_seq_bits) as id
    from (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) a,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) b,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) c,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) e,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) f,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) g
    limit p_n;
end;
