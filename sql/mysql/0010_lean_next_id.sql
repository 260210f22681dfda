-- sheaf 0010 (MySQL/MariaDB): a cheaper sheaf_next_id(), same ids and the same checks. A call that
-- took a cached id cost 50-75 µs of server CPU on MariaDB 10.11 (1-row inserts through a sheaf
-- trigger pay one call per statement), 10 µs of it creating the 22 local variables the slow path
-- needs, most of the rest running its fast path as five statements. So the function is split:
-- - sheaf_next_id() keeps 0005's fast path (the cached id, taken only when the settings row and the
--   clock vouch for it), now one guard and one RETURN around the settings subquery and no local
--   variable: 35-40 µs. When the checks fail it calls
-- - sheaf__claim_chunk(), 0005's slow path unchanged: claims a chunk from the counter and returns
--   its first id. It is internal but harmless to call: it hands out a chunk as sheaf_next_id() does.
--   A test install (install() with testClock) replaces this function's clock statement, no longer
--   sheaf_next_id()'s (install/mysql-test-clock.ts).
-- Triggers of every version keep working: they call sheaf_next_id(), whose result and variables are
-- those of 0005.
-- Needs: 0001-0009 (0002: sheaf__fail, sheaf__iso). MariaDB 10.3+ or MySQL 8.0+.

-- A new chunk for the configured shard and its first id (0005's slow path): one AUTO_INCREMENT value
-- of sheaf_chunks, after moving the counter forward to the clock when it is behind. Chunks are
-- 2^(sequence_bits - 2) ids, four per millisecond; more claims in a millisecond borrow the next one
-- instead of wrapping, and a clock that steps back finds the counter ahead of it: ids continue above
-- the last one issued.
create function sheaf__claim_chunk() returns bigint
  not deterministic modifies sql data
begin
  declare v_shard, v_time_bits, v_shard_bits, v_seq_bits, v_unit_bits, v_chunk_bits, v_low_bits integer;
  declare v_epoch, v_clock, v_now, v_last, v_max_tick, v_first_k, v_k, v_tick, v_base bigint;
  declare v_ahead, v_hot boolean;
  declare v_name varchar(40);
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

-- Replaced, not altered: MySQL has no `create or replace function`. Between the two statements an
-- insert through a sheaf trigger fails with error 1305 (no id is handed out wrong).
drop function if exists sheaf_next_id;
-- sheaf:break

-- The snowflake for the configured shard: the session's cached id when the settings row (read in
-- this call) and the clock vouch for it, as in 0005: a positive integer in this database, not the
-- first id of a chunk (only a claim hands those out), of the configured shard, of the current or a
-- later millisecond within the layout; it then sets @sheaf_id_end, the chunk's end, and
-- @sheaf_id_stmt, the statement that checked it (triggers take the rest of the chunk inline while
-- it is the same). Otherwise a new chunk. The guard stays an IF: text in @sheaf_id_next fails it
-- with a warning, where the same comparison inside the RETURN raises an error in an INSERT (strict
-- mode). AND stops at the first false test, so the assignments run only for an id that passed.
create function sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  if @sheaf_id_next between 1 and 9223372036854775807 and @sheaf_id_db = database() then
    return coalesce((select if(@sheaf_id_next & ((1 << greatest(sequence_bits - 2, 0)) - 1) <> 0
        and (@sheaf_id_next >> sequence_bits) & ((1 << shard_bits) - 1) = shard_id
        and @sheaf_id_next >> (shard_bits + sequence_bits)
          between floor(unix_timestamp(sysdate(3)) * 1000) - epoch_ms and (1 << time_bits) - 1
        and (@sheaf_id_end := (@sheaf_id_next | ((1 << greatest(sequence_bits - 2, 0)) - 1)) + 1) > 0
        and (@sheaf_id_stmt := @@timestamp) is not null,
        (@sheaf_id_next := @sheaf_id_next + 1) - 1, null)
      from sheaf_settings where singleton = 1), sheaf__claim_chunk());
  end if;
  return sheaf__claim_chunk();
end;
