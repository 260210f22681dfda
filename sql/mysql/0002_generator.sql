-- sheaf 0002 (MySQL/MariaDB): the snowflake generator, decoding and configuration.
-- Needs: 0001. MariaDB 10.3+ or MySQL 8.0+ (InnoDB, persistent AUTO_INCREMENT). With binary logging:
-- log_bin_trust_function_creators = 1 and binlog_format ROW or MIXED (SYSDATE is not replayable).
-- Errors: SIGNAL SQLSTATE '45000', MYSQL_ERRNO 30000 + n for SQLSTATE SHnnn of sql-errors.ts, 'sheaf: …'.

-- Raises a sheaf error; messages stay under MESSAGE_TEXT's 128 characters.
create procedure sheaf__fail(in p_errno integer, in p_message varchar(128))
  no sql
begin
  signal sqlstate '45000' set message_text = p_message, mysql_errno = p_errno;
end;
-- sheaf:break

-- Refuses a shard (NULL too) that does not fit the layout's shard bits.
create procedure sheaf__check_shard(in p_shard integer, in p_shard_bits integer)
  no sql
begin
  if p_shard is null or p_shard < 0 or p_shard > (1 << p_shard_bits) - 1 then
    call sheaf__fail(30001, concat('sheaf: shard ', coalesce(p_shard, 'null'), ' does not fit ', p_shard_bits,
      ' shard bits (max ', (1 << p_shard_bits) - 1, ')'));
  end if;
end;
-- sheaf:break

-- A unix millisecond as ISO 8601 UTC, independent of the session time zone.
create function sheaf__iso(p_ms bigint) returns varchar(32)
  deterministic no sql
  return concat(date_format(timestampadd(microsecond, p_ms * 1000, timestamp '1970-01-01 00:00:00'),
    '%Y-%m-%dT%H:%i:%s.'), lpad(mod(mod(p_ms, 1000) + 1000, 1000), 3, '0'), 'Z');
-- sheaf:break

-- The largest tick a layout can encode: its time bits, and the sign bit that stays 0.
create function sheaf__max_tick(p_time_bits integer, p_low_bits integer) returns bigint
  deterministic no sql
  return least(if(p_time_bits >= 63, 9223372036854775807, (1 << p_time_bits) - 1),
    9223372036854775807 >> p_low_bits);
-- sheaf:break

-- The snowflake for the configured shard. The fast path, taken for all but one id per chunk, reads
-- session variables only: the ids of a chunk this session claimed (@sheaf_id_next up to
-- @sheaf_id_end), valid until the clock leaves the chunk's millisecond (@sheaf_id_until) and only
-- in this database (@sheaf_id_db). The slow path claims a new chunk: one AUTO_INCREMENT value of
-- sheaf_chunks, after moving the counter forward to the clock when it is behind. Chunks are 2^(sequence_bits - 2) ids, four per millisecond; more
-- claims in a millisecond borrow the next one instead of wrapping, and a clock that steps back
-- finds the counter ahead of it: ids continue above the last one issued.
create function sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  declare v_shard, v_time_bits, v_shard_bits, v_seq_bits, v_unit_bits, v_chunk_bits integer;
  declare v_epoch, v_real, v_now, v_first_k, v_k, v_tick, v_base bigint;
  declare v_test boolean;
  declare v_name varchar(40);
  if @sheaf_id_next < @sheaf_id_end and @sheaf_id_db = database() and unix_timestamp(sysdate(3)) < @sheaf_id_until then
    set @sheaf_id_next = @sheaf_id_next + 1;
    return @sheaf_id_next - 1;
  end if;
  select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits, test_clock
    into v_shard, v_name, v_epoch, v_time_bits, v_shard_bits, v_seq_bits, v_test
    from sheaf_settings where singleton = 1;
  -- Milliseconds since the epoch, now; the clock and the layout's last tick are computed inline (a
  -- stored function call costs about as much as an insert here). SYSDATE, because NOW() is frozen
  -- for a whole statement. A test install reads @sheaf_clock_ms (absolute) and
  -- @sheaf_clock_offset_ms (added) instead; a production install ignores both.
  set v_real = floor(unix_timestamp(sysdate(3)) * 1000);
  set v_now = if(v_test, coalesce(@sheaf_clock_ms, v_real) + coalesce(@sheaf_clock_offset_ms, 0), v_real) - v_epoch;
  if v_now < 0 then
    call sheaf__fail(30004, concat('sheaf: the clock (', sheaf__iso(v_now + v_epoch), ') is before the epoch of layout ',
      v_name));
  end if;
  set v_unit_bits = greatest(v_seq_bits - 2, 0);
  set v_chunk_bits = v_seq_bits - v_unit_bits;
  -- A session whose last chunk is at or ahead of the clock (used up early: a burst, many sessions,
  -- a clock step back) knows the counter is too: one insert claims. Otherwise it first moves the
  -- counter with an explicit value (a no-op when the counter is already past it) to the clock, or,
  -- when its last chunk ran out of time less than 8 ms ago (a hot session), 7 ms ahead of it: that
  -- chunk then lasts 8 ms instead of one, so a session inserting a row every few ms claims once per
  -- several rows, and ids run at most 7 ms ahead of the clock. Explicit 0 would mean "generate":
  -- nothing to move below 1.
  if @sheaf_id_db <=> database() and @sheaf_id_tick >= v_now then
    set v_first_k = v_now << v_chunk_bits;
  else
    set v_first_k = (v_now + if(@sheaf_id_db <=> database() and @sheaf_id_tick >= v_now - 8, 7, 0)) << v_chunk_bits;
    if v_first_k > 1 then
      insert ignore into sheaf_chunks (k, s) values (v_first_k - 1, connection_id());
      delete from sheaf_chunks where k = v_first_k - 1 and s = connection_id();
    end if;
  end if;
  insert into sheaf_chunks (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_chunks where k = v_k and s = 0;
  set v_tick = v_k >> v_chunk_bits;
  if v_tick > least(if(v_time_bits >= 63, 9223372036854775807, (1 << v_time_bits) - 1),
      9223372036854775807 >> (v_shard_bits + v_seq_bits)) then
    call sheaf__fail(30003, concat('sheaf: layout ', v_name, ' ran out of time at ',
      sheaf__iso(sheaf__max_tick(v_time_bits, v_shard_bits + v_seq_bits) + v_epoch)));
  end if;
  set v_base = (v_tick << (v_shard_bits + v_seq_bits)) | (v_shard << v_seq_bits)
    | ((v_k & ((1 << v_chunk_bits) - 1)) << v_unit_bits);
  -- Valid until the real clock leaves the chunk's millisecond (seconds, as the fast path compares).
  set @sheaf_id_next = v_base + 1, @sheaf_id_end = v_base + (1 << v_unit_bits), @sheaf_id_tick = v_tick,
    @sheaf_id_db = database(), @sheaf_id_until = (v_real + v_tick - v_now + 1) / 1000;
  return v_base;
end;
-- sheaf:break

-- A snowflake for an explicit logical shard: the counter is shared by all shards of this database,
-- so replacing the shard field of sheaf_next_id() keeps ids unique.
create function sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_shard_bits);
  return (sheaf_next_id() & ~(((1 << v_shard_bits) - 1) << v_seq_bits)) | (p_shard << v_seq_bits);
end;
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
  if p_n is null or p_n < 1 or p_n > 1000000 then
    call sheaf__fail(30002, concat('sheaf: n must be 1 to 1000000 ids, not ', coalesce(p_n, 'null')));
  end if;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  if p_shard is not null then
    call sheaf__check_shard(p_shard, v_shard_bits);
  end if;
  set @sheaf_id_next = null;
  -- Keeps every field but the shard, which p_shard replaces when given.
  set v_mask = if(p_shard is null, ~0, ~(((1 << v_shard_bits) - 1) << v_seq_bits));
  select (sheaf_next_id() & v_mask) | (coalesce(p_shard, 0) << v_seq_bits) as id
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
-- sheaf:break

-- n ids of the configured shard: sheaf_next_shard_ids(n, null).
create procedure sheaf_next_ids(in p_n integer)
  not deterministic modifies sql data
  call sheaf_next_shard_ids(p_n, null);
-- sheaf:break

-- The tick (ms since the layout's epoch) of a DATETIME(3) read as UTC; refuses times the layout cannot encode.
create function sheaf__tick(p_at datetime(3)) returns bigint
  not deterministic reads sql data
begin
  declare v_epoch, v_tick, v_max bigint;
  declare v_name varchar(40);
  select epoch_ms, layout_name, sheaf__max_tick(time_bits, shard_bits + sequence_bits)
    into v_epoch, v_name, v_max from sheaf_settings where singleton = 1;
  set v_tick = timestampdiff(microsecond, timestamp '1970-01-01 00:00:00', p_at) div 1000 - v_epoch;
  if v_tick < 0 then
    call sheaf__fail(30004, concat('sheaf: time ', sheaf__iso(v_tick + v_epoch), ' is before the epoch ',
      sheaf__iso(v_epoch), ' of layout ', v_name));
  end if;
  if v_tick > v_max then
    call sheaf__fail(30003, concat('sheaf: time ', sheaf__iso(v_tick + v_epoch), ' is after ', sheaf__iso(v_max + v_epoch),
      ', the end of layout ', v_name));
  end if;
  return v_tick;
end;
-- sheaf:break

-- The smallest id possible at a time: `where id between sheaf_id_floor(a) and sheaf_id_ceiling(b)`.
create function sheaf_id_floor(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1);
-- sheaf:break

-- The largest id possible at a time.
create function sheaf_id_ceiling(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return (sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1))
    | (select (1 << (shard_bits + sequence_bits)) - 1 from sheaf_settings where singleton = 1);
-- sheaf:break

-- The id of a time, shard and sequence (the inverse of sheaf_decode_id).
create function sheaf_encode_id(p_at datetime(3), p_shard integer, p_sequence integer) returns bigint
  not deterministic reads sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_shard_bits);
  if p_sequence is null or p_sequence < 0 or p_sequence > (1 << v_seq_bits) - 1 then
    call sheaf__fail(30020, concat('sheaf: sequence ', coalesce(p_sequence, 'null'), ' does not fit ', v_seq_bits,
      ' sequence bits (max ', (1 << v_seq_bits) - 1, ')'));
  end if;
  return (sheaf__tick(p_at) << (v_shard_bits + v_seq_bits)) | (p_shard << v_seq_bits) | p_sequence;
end;
-- sheaf:break

-- Refuses ids outside the layout: negative, or above its largest id.
create function sheaf__check_id(p_id bigint) returns bigint
  not deterministic reads sql data
begin
  declare v_max bigint;
  declare v_name varchar(40);
  select (sheaf__max_tick(time_bits, shard_bits + sequence_bits) << (shard_bits + sequence_bits))
      | ((1 << (shard_bits + sequence_bits)) - 1), layout_name
    into v_max, v_name from sheaf_settings where singleton = 1;
  if p_id < 0 or p_id > v_max then
    call sheaf__fail(30009, concat('sheaf: id ', p_id, ' is outside layout ', v_name, ' (0 to ', v_max, ')'));
  end if;
  return p_id;
end;
-- sheaf:break

-- When an id was made, as DATETIME(3) in UTC (DATETIME reaches 9999; TIMESTAMP would stop in 2038).
create function sheaf_id_time(p_id bigint) returns datetime(3)
  not deterministic reads sql data
  return (select timestampadd(microsecond, ((sheaf__check_id(p_id) >> (shard_bits + sequence_bits)) + epoch_ms) * 1000,
    timestamp '1970-01-01 00:00:00') from sheaf_settings where singleton = 1);
-- sheaf:break

create function sheaf_id_shard(p_id bigint) returns integer
  not deterministic reads sql data
  return (select (sheaf__check_id(p_id) >> sequence_bits) & ((1 << shard_bits) - 1) from sheaf_settings
    where singleton = 1);
-- sheaf:break

create function sheaf_id_sequence(p_id bigint) returns integer
  not deterministic reads sql data
  return (select sheaf__check_id(p_id) & ((1 << sequence_bits) - 1) from sheaf_settings where singleton = 1);
-- sheaf:break

-- All three fields as JSON: {"created_at": "2024-…Z", "shard_id": 7, "sequence": 12}.
create function sheaf_decode_id(p_id bigint) returns varchar(100)
  not deterministic reads sql data
  return json_object('created_at', concat(replace(cast(sheaf_id_time(p_id) as char), ' ', 'T'), 'Z'),
    'shard_id', 0 + sheaf_id_shard(p_id), 'sequence', 0 + sheaf_id_sequence(p_id));
-- sheaf:break

-- Sets the shard, and the layout until the first id was issued. Takes one counter value as a probe:
-- a counter above the previous configure's probe means ids were issued since.
create procedure sheaf_configure(in p_shard integer, in p_layout varchar(40), in p_epoch bigint,
  in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data
begin
  declare v_k bigint;
  declare v_changes boolean;
  if p_layout is null or not (p_layout regexp '^[a-z0-9_-]{1,40}$')
      or cast(p_layout as binary) <> cast(lower(p_layout) as binary) then
    call sheaf__fail(30008, concat('sheaf: layout name ', coalesce(quote(p_layout), 'null'),
      ' must be 1 to 40 of a-z, 0-9, _ and -'));
  end if;
  if p_time_bits is null or p_shard_bits is null or p_seq_bits is null or p_epoch is null or p_time_bits < 1
      or p_seq_bits < 1 or p_shard_bits < 0 or p_time_bits + p_shard_bits + p_seq_bits > 64 or p_epoch < 0 then
    call sheaf__fail(30008, concat('sheaf: layout ', p_layout, ' is invalid: epoch ', coalesce(p_epoch, 'null'), ', ',
      coalesce(p_time_bits, 'null'), '+', coalesce(p_shard_bits, 'null'), '+', coalesce(p_seq_bits, 'null'), ' bits'));
  end if;
  call sheaf__check_shard(p_shard, p_shard_bits);
  insert into sheaf_chunks (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_chunks where k = v_k and s = 0;
  select (epoch_ms, time_bits, shard_bits, sequence_bits) <> (p_epoch, p_time_bits, p_shard_bits, p_seq_bits)
      and v_k > probe_k + 1
    into v_changes from sheaf_settings where singleton = 1;
  if v_changes then
    call sheaf__fail(30005, concat('sheaf: cannot change layout ', (select layout_name from sheaf_settings),
      ' to ', p_layout, ': ids were already issued with it'));
  end if;
  update sheaf_settings set shard_id = p_shard, layout_name = p_layout, epoch_ms = p_epoch, time_bits = p_time_bits,
    shard_bits = p_shard_bits, sequence_bits = p_seq_bits, test_clock = coalesce(p_test, false), probe_k = v_k,
    configured_at = current_timestamp(3)
    where singleton = 1;
  -- This session's cached chunk belongs to the old shard.
  set @sheaf_id_next = null;
end;
