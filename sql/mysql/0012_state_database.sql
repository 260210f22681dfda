-- sheaf 0012 (MySQL/MariaDB): sheaf's state moves out of the application's database into a database
-- of its own beside it, `sheaf_<app>`, where a grant on `app.*` (even ALL) does not reach: the
-- settings, the chunk counter, tickets, segments, worker leases, logical shards and the version
-- table. The application's database keeps one-line forwards of the routines that apps and admins
-- call, with the security of what they forward to, so `sheaf_next_id()`, triggers and `sheaf grant`
-- work as before; an account with DML and EXECUTE on `app.*` can no longer write sheaf's state.
-- The installer writes the two databases' names into {app} and {state}, quoted; inside `{state}`,
-- `database()` is the state database, whose name is 'sheaf_' followed by the application's.
-- RENAME TABLE moves the tables with their rows and AUTO_INCREMENT counters, all in one atomic
-- statement: the routines of the application's database fail (1146) from that moment until their
-- forwards replace them, and no id is issued twice (a session's cached chunk stays valid: the
-- settings row it is checked against moved with it).
-- Applied again after failing half-way: the move happens only while the tables are still in the
-- application's database, and every routine is created after its own `drop … if exists`.
-- Needs: 0001-0011. MariaDB 10.3+ or MySQL 8.0+; the installer needs CREATE on `sheaf_<app>`.

create database if not exists {state};
-- sheaf:break

drop procedure if exists {state}.sheaf__fail;
-- sheaf:break

-- sheaf 0002 (MySQL/MariaDB): the snowflake generator, decoding and configuration.
-- Needs: 0001. MariaDB 10.3+ or MySQL 8.0+ (InnoDB, persistent AUTO_INCREMENT). With binary logging:
-- log_bin_trust_function_creators = 1 and binlog_format ROW or MIXED (SYSDATE is not replayable).
-- Errors: SIGNAL SQLSTATE '45000', MYSQL_ERRNO 30000 + n for SQLSTATE SHnnn of sql-errors.ts, 'sheaf: …'.

-- Raises a sheaf error; messages stay under MESSAGE_TEXT's 128 characters.
create definer = current_user procedure {state}.sheaf__fail(in p_errno integer, in p_message varchar(128))
  no sql
begin
  signal sqlstate '45000' set message_text = p_message, mysql_errno = p_errno;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf__check_shard;
-- sheaf:break

-- Refuses a shard (NULL too) that does not fit the layout's shard bits.
create definer = current_user procedure {state}.sheaf__check_shard(in p_shard integer, in p_shard_bits integer)
  no sql
begin
  if p_shard is null or p_shard < 0 or p_shard > (1 << p_shard_bits) - 1 then
    call sheaf__fail(30001, concat('sheaf: shard ', coalesce(p_shard, 'null'), ' does not fit ', p_shard_bits,
      ' shard bits (max ', (1 << p_shard_bits) - 1, ')'));
  end if;
end;
-- sheaf:break

drop function if exists {state}.sheaf__iso;
-- sheaf:break

-- A unix millisecond as ISO 8601 UTC, independent of the session time zone; the number beyond the
-- years DATETIME arithmetic reaches.
create definer = current_user function {state}.sheaf__iso(p_ms bigint) returns varchar(32)
  deterministic no sql
  return case when p_ms between -62135596800000 and 253402300799999
    then concat(date_format(timestampadd(microsecond, p_ms * 1000, timestamp '1970-01-01 00:00:00'),
      '%Y-%m-%dT%H:%i:%s.'), lpad(mod(mod(p_ms, 1000) + 1000, 1000), 3, '0'), 'Z')
    else concat(p_ms, ' ms') end;
-- sheaf:break

drop function if exists {state}.sheaf__max_tick;
-- sheaf:break

-- The largest tick a layout can encode: its time bits, and the sign bit that stays 0.
create definer = current_user function {state}.sheaf__max_tick(p_time_bits integer, p_low_bits integer) returns bigint
  deterministic no sql
  return least(if(p_time_bits >= 63, 9223372036854775807, (1 << p_time_bits) - 1),
    9223372036854775807 >> p_low_bits);
-- sheaf:break

drop function if exists {state}.sheaf_next_id;
-- sheaf:break

-- The snowflake for the configured shard: the session's cached id when the settings row (read in
-- this call) and the clock vouch for it, as in 0005: a positive integer in this database, not the
-- first id of a chunk (only a claim hands those out), of the configured shard, of the current or a
-- later millisecond within the layout; it then sets @sheaf_id_end, the chunk's end, and
-- @sheaf_id_stmt, the statement that checked it (triggers take the rest of the chunk inline while
-- it is the same). Otherwise a new chunk. The guard stays an IF: text in @sheaf_id_next fails it
-- with a warning, where the same comparison inside the RETURN raises an error in an INSERT (strict
-- mode). AND stops at the first false test, so the assignments run only for an id that passed.
create definer = current_user function {state}.sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  if @sheaf_id_next between 1 and 9223372036854775807 and @sheaf_id_db = substring(database(), 7) then
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
-- sheaf:break

drop function if exists {state}.sheaf_next_shard_id;
-- sheaf:break

-- A snowflake for a logical shard of this database: the counter is shared by all its shards, so
-- replacing the shard field of sheaf_next_id() keeps ids unique.
create definer = current_user function {state}.sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  call sheaf__check_owned_shard(p_shard);
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  return (sheaf_next_id() & ~(((1 << v_shard_bits) - 1) << v_seq_bits)) | (p_shard << v_seq_bits);
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_next_shard_ids;
-- sheaf:break

-- n ids as a result set of one `id` column, in issuing order (for ORMs and batch inserts), on the
-- configured shard or on p_shard (not null). Crash-durable in autocommit: the session's cached chunk
-- is dropped first, so the statement claims at least one chunk itself (an InnoDB write) and its
-- commit flushes the redo log up to that claim, which covers every chunk claimed before it in any
-- session. The ids reach the caller after that commit.
create definer = current_user procedure {state}.sheaf_next_shard_ids(in p_n integer, in p_shard integer)
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
-- sheaf:break

drop procedure if exists {state}.sheaf_next_ids;
-- sheaf:break

-- n ids of the configured shard: sheaf_next_shard_ids(n, null).
create definer = current_user procedure {state}.sheaf_next_ids(in p_n integer)
  not deterministic modifies sql data
  call sheaf_next_shard_ids(p_n, null);
-- sheaf:break

drop function if exists {state}.sheaf__tick;
-- sheaf:break

-- The tick (ms since the layout's epoch) of a DATETIME(3) read as UTC; refuses times the layout
-- cannot encode, naming the DATETIME as given (year 0 included, which DATETIME arithmetic does not
-- reach), and dates with no instant (timestampdiff is NULL for them).
create definer = current_user function {state}.sheaf__tick(p_at datetime(3)) returns bigint
  not deterministic reads sql data
begin
  declare v_epoch, v_tick, v_max bigint;
  declare v_name varchar(40);
  declare v_at varchar(32) default concat(left(date_format(p_at, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z');
  select epoch_ms, layout_name, sheaf__max_tick(time_bits, shard_bits + sequence_bits)
    into v_epoch, v_name, v_max from sheaf_settings where singleton = 1;
  set v_tick = timestampdiff(microsecond, timestamp '1970-01-01 00:00:00', p_at) div 1000 - v_epoch;
  if v_tick is null and p_at is not null then
    call sheaf__fail(30002, left(concat('sheaf: time ', cast(p_at as char), ' has a zero month or day and no instant: ',
      'pass a valid DATETIME'), 128));
  end if;
  if v_tick < 0 then
    call sheaf__fail(30004, left(concat('sheaf: time ', v_at, ' is before the epoch ', sheaf__iso(v_epoch),
      ' of layout ', v_name), 128));
  end if;
  if v_tick > v_max then
    call sheaf__fail(30003, left(concat('sheaf: time ', v_at, ' is after ', sheaf__iso(v_max + v_epoch),
      ', the end of layout ', v_name), 128));
  end if;
  return v_tick;
end;
-- sheaf:break

drop function if exists {state}.sheaf_id_floor;
-- sheaf:break

-- The smallest id possible at a time: `where id between sheaf_id_floor(a) and sheaf_id_ceiling(b)`.
create definer = current_user function {state}.sheaf_id_floor(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1);
-- sheaf:break

drop function if exists {state}.sheaf_id_ceiling;
-- sheaf:break

-- The largest id possible at a time.
create definer = current_user function {state}.sheaf_id_ceiling(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return (sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1))
    | (select (1 << (shard_bits + sequence_bits)) - 1 from sheaf_settings where singleton = 1);
-- sheaf:break

drop function if exists {state}.sheaf_encode_id;
-- sheaf:break

-- The id of a time, shard and sequence (the inverse of sheaf_decode_id).
create definer = current_user function {state}.sheaf_encode_id(p_at datetime(3), p_shard integer, p_sequence integer) returns bigint
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

drop function if exists {state}.sheaf__check_id;
-- sheaf:break

-- Refuses ids outside the layout: negative, or above its largest id.
create definer = current_user function {state}.sheaf__check_id(p_id bigint) returns bigint
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

drop function if exists {state}.sheaf_id_time;
-- sheaf:break

-- When an id was made, as DATETIME(3) in UTC (DATETIME reaches 9999; TIMESTAMP would stop in 2038).
create definer = current_user function {state}.sheaf_id_time(p_id bigint) returns datetime(3)
  not deterministic reads sql data
  return (select timestampadd(microsecond, ((sheaf__check_id(p_id) >> (shard_bits + sequence_bits)) + epoch_ms) * 1000,
    timestamp '1970-01-01 00:00:00') from sheaf_settings where singleton = 1);
-- sheaf:break

drop function if exists {state}.sheaf_id_shard;
-- sheaf:break

create definer = current_user function {state}.sheaf_id_shard(p_id bigint) returns integer
  not deterministic reads sql data
  return (select (sheaf__check_id(p_id) >> sequence_bits) & ((1 << shard_bits) - 1) from sheaf_settings
    where singleton = 1);
-- sheaf:break

drop function if exists {state}.sheaf_id_sequence;
-- sheaf:break

create definer = current_user function {state}.sheaf_id_sequence(p_id bigint) returns integer
  not deterministic reads sql data
  return (select sheaf__check_id(p_id) & ((1 << sequence_bits) - 1) from sheaf_settings where singleton = 1);
-- sheaf:break

drop function if exists {state}.sheaf_decode_id;
-- sheaf:break

-- All three fields as JSON: {"created_at": "2024-…Z", "shard_id": 7, "sequence": 12}.
create definer = current_user function {state}.sheaf_decode_id(p_id bigint) returns varchar(100)
  not deterministic reads sql data
  return json_object('created_at', concat(replace(cast(sheaf_id_time(p_id) as char), ' ', 'T'), 'Z'),
    'shard_id', 0 + sheaf_id_shard(p_id), 'sequence', 0 + sheaf_id_sequence(p_id));
-- sheaf:break

drop procedure if exists {state}.sheaf_configure;
-- sheaf:break

-- As in 0004, with the shard claimed in the id space first (30016 when another holder has it: then
-- nothing changed; MySQL commits each statement, so the claim must come before the settings), and
-- the old one given back, unless it is also a logical shard, with the last millisecond its ids can
-- carry: the tick of a counter value taken after the settings changed (every chunk claimed before
-- it is below it), or the clock, plus 8 ms for a statement that read the old settings just before
-- the change and claims its chunk just after (a hot session claims up to 7 ms ahead of the clock).
create definer = current_user procedure {state}.sheaf_configure(in p_shard integer, in p_layout varchar(40),
  in p_epoch bigint, in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data sql security invoker
begin
  declare v_k, v_probe, v_old_epoch, v_last_ms, v_ahead bigint;
  declare v_layout_changes, v_issued, v_released boolean;
  declare v_old_shard, v_old_seq_bits integer;
  declare v_db char(36);
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
  select shard_id, epoch_ms, sequence_bits, database_id, probe_k,
      (epoch_ms, time_bits, shard_bits, sequence_bits) <> (p_epoch, p_time_bits, p_shard_bits, p_seq_bits)
    into v_old_shard, v_old_epoch, v_old_seq_bits, v_db, v_probe, v_layout_changes
    from sheaf_settings where singleton = 1;
  if v_layout_changes then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    select v_k > probe_k + 1 into v_issued from sheaf_settings where singleton = 1;
    if v_issued then
      call sheaf__fail(30005, concat('sheaf: cannot change layout ', (select layout_name from sheaf_settings),
        ' to ', p_layout, ': ids were already issued with it'));
    end if;
    set v_probe = v_k;
  end if;
  -- A free value given back a moment ago, whose last millisecond is at most 1 s ahead of the clock
  -- (sheaf_configure records 8 ms to spare), is waited for as a starting generator waits; read in a
  -- statement of its own, which in autocommit commits before the claim locks the row.
  set v_ahead = (select w.last_timestamp_ms + 1 - c.now_ms
    from sheaf_workers w, (select floor(unix_timestamp(sysdate(3)) * 1000) as now_ms) c
    where w.worker_id = p_shard and w.kind = 'worker' and (w.expires_ms is null or w.expires_ms < c.now_ms));
  if v_ahead between 1 and 1000 then
    do sleep(v_ahead / 1000);
  end if;
  set v_last_ms = sheaf__claim_own_shard(p_shard, false);
  update sheaf_settings set shard_id = p_shard, layout_name = p_layout, epoch_ms = p_epoch, time_bits = p_time_bits,
    shard_bits = p_shard_bits, sequence_bits = p_seq_bits, test_clock = coalesce(p_test, false), probe_k = v_probe,
    configured_at = current_timestamp(3)
    where singleton = 1;
  -- This session's cached chunk belongs to the old shard.
  set @sheaf_id_next = null;
  if p_shard <> v_old_shard and not exists (select 1 from sheaf_logical_shards where shard_id = v_old_shard) then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    -- This probe is no id: where none was issued since the last probe, none is issued still.
    update sheaf_settings set probe_k = v_k where singleton = 1 and probe_k = v_k - 1;
    set v_last_ms = greatest((v_k >> (v_old_seq_bits - greatest(v_old_seq_bits - 2, 0))) + v_old_epoch,
      floor(unix_timestamp(sysdate(3)) * 1000)) + 8;
    set v_released = sheaf_release_shard(v_old_shard, v_db, v_last_ms);
  end if;
end;
-- sheaf:break

drop function if exists {state}.sheaf__now_ms;
-- sheaf:break

-- sheaf 0003 (MySQL/MariaDB): Flickr-style tickets, Leaf-style segments and worker-id leases, with
-- the semantics of PostgreSQL's 0004-0006.
-- Needs: 0001, 0002 (sheaf__fail). MariaDB 10.3+ or MySQL 8.0+. Call these in autocommit: segments
-- and leases update InnoDB rows, whose locks last until the caller commits. In autocommit each
-- statement of a procedure commits on its own.

-- Unix ms now, read when the statement gets to it (NOW() and UTC_TIMESTAMP() are frozen for the
-- whole statement, also across a lock wait).
create definer = current_user function {state}.sheaf__now_ms() returns bigint
  not deterministic no sql
  return floor(unix_timestamp(sysdate(3)) * 1000);
-- sheaf:break

drop procedure if exists {state}.sheaf_create_ticket;
-- sheaf:break

-- A ticket counter on this server: `step` servers share the name, this one at `p_offset` (1..step).
-- Idempotent: the same name, step and offset again does nothing; another step or offset is NAME_TAKEN.
create definer = current_user procedure {state}.sheaf_create_ticket(in p_name varchar(64), in p_step integer, in p_offset integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_offset integer;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_name is null or p_name = '' then
    call sheaf__fail(30002, concat('sheaf: ticket name must be non-empty text, not ', coalesce(quote(p_name), 'null')));
  end if;
  if p_step is null or p_step < 1 or p_offset is null or p_offset < 1 or p_offset > p_step then
    call sheaf__fail(30002, concat('sheaf: ticket ', quote(p_name), ': step ', coalesce(p_step, 'null'), ' and offset ',
      coalesce(p_offset, 'null'), ' must satisfy 1 <= offset <= step'));
  end if;
  insert into sheaf_tickets (name, step, ticket_offset) values (p_name, p_step, p_offset);
  if v_taken then
    select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
    if (v_step, v_offset) <> (p_step, p_offset) then
      call sheaf__fail(30010, concat('sheaf: ticket ', quote(p_name), ' already exists with step ', v_step,
        ' and offset ', v_offset));
    end if;
  end if;
end;
-- sheaf:break

drop function if exists {state}.sheaf_next_ticket;
-- sheaf:break

-- As in 0003, plus the name's counter_shift: (k - 1 + counter_shift) * step + ticket_offset.
create definer = current_user function {state}.sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
begin
  declare v_step, v_offset integer;
  declare v_shift, v_k bigint;
  select step, ticket_offset, counter_shift into v_step, v_offset, v_shift from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  insert into sheaf_ticket_counter (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_ticket_counter where k = v_k;
  return (v_k - 1 + v_shift) * v_step + v_offset;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_create_segment;
-- sheaf:break

-- A segment row. Idempotent: the same biz_tag and step again does nothing, as long as max_id was not
-- set higher than the segment reached; otherwise NAME_TAKEN. The description is not compared.
create definer = current_user procedure {state}.sheaf_create_segment(in p_biz_tag varchar(128), in p_step integer, in p_max_id bigint,
  in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
begin
  declare v_step integer;
  declare v_max bigint;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_biz_tag is null or p_biz_tag = '' then
    call sheaf__fail(30002, concat('sheaf: segment biz_tag must be non-empty text, not ',
      coalesce(quote(p_biz_tag), 'null')));
  end if;
  if p_step is null or p_step < 1 then
    call sheaf__fail(30002, concat('sheaf: segment ', quote(p_biz_tag), ': step must be at least 1, not ',
      coalesce(p_step, 'null')));
  end if;
  if p_max_id is null or p_max_id < 0 then
    call sheaf__fail(30002, concat('sheaf: segment ', quote(p_biz_tag), ': max_id must be 0 or more, not ',
      coalesce(p_max_id, 'null')));
  end if;
  insert into sheaf_segments (biz_tag, max_id, step, description) values (p_biz_tag, p_max_id, p_step, p_description);
  if v_taken then
    select step, max_id into v_step, v_max from sheaf_segments where biz_tag = p_biz_tag;
    if v_step <> p_step or v_max < p_max_id then
      call sheaf__fail(30010, concat('sheaf: segment ', quote(p_biz_tag), ' already exists with step ', v_step,
        ' and max_id ', v_max, ', not step ', p_step, ' and max_id ', p_max_id));
    end if;
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_alloc_segment;
-- sheaf:break

-- As in 0003, for rows of one database only (delta 1): a contiguous range of a row with delta > 1
-- would hold the ids of the other databases' classes.
create definer = current_user procedure {state}.sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
  not deterministic modifies sql data
begin
  declare v_step, v_max bigint;
  declare v_delta, v_remainder integer;
  declare v_done boolean default false;
  if p_step is not null and p_step < 1 then
    call sheaf__fail(30002, concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'),
      ': step must be at least 1, not ', p_step));
  end if;
  set v_step = coalesce(p_step, (select step from sheaf_segments where biz_tag = p_biz_tag));
  if v_step is not null then
    update sheaf_segments set max_id = last_insert_id(max_id + v_step), updated_at = current_timestamp(3)
      where biz_tag = p_biz_tag and delta = 1 and max_id <= 9223372036854775807 - v_step;
    set v_done = row_count() = 1;
  end if;
  if v_done then
    set v_max = last_insert_id();
    select v_max - v_step + 1 as first_id, v_max as last_id;
  else
    set v_max = (select max_id from sheaf_segments where biz_tag = p_biz_tag);
    if v_max is null then
      call sheaf__fail(30007, concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
        '; create it with sheaf_create_segment'));
    end if;
    select delta, remainder into v_delta, v_remainder from sheaf_segments where biz_tag = p_biz_tag;
    if v_delta <> 1 then
      call sheaf__fail(30018, left(concat('sheaf: segment ', quote(p_biz_tag), ' is residue class ', v_remainder,
        ' mod ', v_delta, ' in this database: allocate it with sheaf_alloc_segment_class'), 128));
    end if;
    call sheaf__fail(30011, concat('sheaf: segment ', quote(p_biz_tag), ' is exhausted: max_id ', v_max, ' + step ',
      v_step, ' exceeds 9223372036854775807'));
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_lease_worker;
-- sheaf:break

-- Leases the lowest worker id in [0, p_max_worker] that no database holds and whose lease is free
-- or expired: one row (worker_id, lease_token, last_timestamp_ms). As in 0003 otherwise: of two
-- callers after one id, the second finds it taken and tries the next candidate; each retry means
-- another caller got a lease or a database claimed the value.
create definer = current_user procedure {state}.sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer,
  in p_max_worker integer)
  not deterministic modifies sql data
begin
  declare v_id integer;
  declare v_token char(36);
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  if p_max_worker is null or p_max_worker < 0 then
    call sheaf__fail(30002, concat('sheaf: max_worker must be 0 or more, not ', coalesce(p_max_worker, 'null')));
  end if;
  lease: loop
    select min(c.id) into v_id from (
      select 0 as id from dual where not exists (select 1 from sheaf_workers w where w.worker_id = 0)
      union all
      select w.worker_id + 1 from sheaf_workers w
        where w.worker_id < p_max_worker
          and not exists (select 1 from sheaf_workers x where x.worker_id = w.worker_id + 1)
      union all
      select w.worker_id from sheaf_workers w
        where w.kind = 'worker' and w.worker_id <= p_max_worker
          and (w.expires_ms is null or w.expires_ms < sheaf__now_ms())
    ) c;
    if v_id is null then
      call sheaf__fail(30012, left(concat('sheaf: all ', p_max_worker + 1, ' worker ids from 0 to ', p_max_worker,
        ' are leased or held by databases; holder ', quote(p_holder), ' got none'), 128));
    end if;
    call sheaf__take_worker(v_id, p_holder, p_lease_ms, v_token);
    if v_token is not null then
      select worker_id, lease_token, last_timestamp_ms from sheaf_workers
        where worker_id = v_id and lease_token = v_token;
      leave lease;
    end if;
  end loop;
end;
-- sheaf:break

drop function if exists {state}.sheaf_heartbeat_worker;
-- sheaf:break

-- Extends a lease and records how far the holder's clock got (the greater of it and the stored
-- value); returns the new expiry (unix ms). LEASE_LOST when the lease was taken over, released or
-- has expired: the holder must stop issuing ids.
create definer = current_user function {state}.sheaf_heartbeat_worker(p_worker_id integer, p_token char(36), p_last_ms bigint, p_lease_ms integer)
  returns bigint
  not deterministic modifies sql data
begin
  declare v_holder varchar(255);
  declare v_token char(36);
  declare v_expires bigint;
  declare continue handler for not found set v_token = null;
  if p_worker_id is null or p_token is null then
    call sheaf__fail(30002, concat('sheaf: heartbeat needs a worker_id and a lease_token, not ',
      coalesce(p_worker_id, 'null'), ' and ', coalesce(p_token, 'null')));
  end if;
  if p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': last_timestamp_ms must be 0 or more, not ',
      coalesce(p_last_ms, 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': lease_ms must be at least 1, not ',
      coalesce(p_lease_ms, 'null')));
  end if;
  update sheaf_workers
    set expires_ms = sheaf__now_ms() + p_lease_ms, heartbeat_ms = sheaf__now_ms(),
      last_timestamp_ms = greatest(last_timestamp_ms, p_last_ms)
    where worker_id = p_worker_id and lease_token = p_token and expires_ms >= sheaf__now_ms();
  if row_count() = 1 then
    return (select expires_ms from sheaf_workers where worker_id = p_worker_id);
  end if;
  select holder, lease_token, expires_ms into v_holder, v_token, v_expires
    from sheaf_workers where worker_id = p_worker_id;
  if v_token <=> p_token then
    call sheaf__fail(30013, concat('sheaf: worker ', p_worker_id, ': lease ', p_token, ' expired at ',
      sheaf__iso(v_expires)));
  end if;
  call sheaf__fail(30013, concat('sheaf: worker ', p_worker_id, ': lease ', p_token, ' was lost; the worker id is now ',
    coalesce(concat('leased by ', quote(v_holder)), 'free')));
  return null;
end;
-- sheaf:break

drop function if exists {state}.sheaf_release_worker;
-- sheaf:break

-- Frees a worker id and records the holder's final last_timestamp_ms. Returns false, changing
-- nothing, when the token no longer holds the id: releasing a lost lease is harmless.
create definer = current_user function {state}.sheaf_release_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
begin
  if p_worker_id is null or p_token is null then
    call sheaf__fail(30002, concat('sheaf: release needs a worker_id and a lease_token, not ',
      coalesce(p_worker_id, 'null'), ' and ', coalesce(p_token, 'null')));
  end if;
  if p_last_ms < 0 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': last_timestamp_ms must be 0 or more, not ',
      p_last_ms));
  end if;
  update sheaf_workers
    set holder = null, lease_token = null, expires_ms = null,
      last_timestamp_ms = greatest(last_timestamp_ms, coalesce(p_last_ms, 0))
    where worker_id = p_worker_id and lease_token = p_token;
  return row_count() = 1;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_add_shard;
-- sheaf:break

-- As in 0005, with the shard claimed in the id space (30016 when another holder has it). Call it in
-- autocommit, as install() calls sheaf_configure: then each statement commits on its own.
create definer = current_user procedure {state}.sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_last_ms, v_ahead bigint;
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  -- A free value given back a moment ago, whose last millisecond is at most 1 s ahead of the clock
  -- (sheaf_configure records 8 ms to spare), is waited for as a starting generator waits; read in a
  -- statement of its own, which in autocommit commits before the claim locks the row.
  set v_ahead = (select w.last_timestamp_ms + 1 - c.now_ms
    from sheaf_workers w, (select floor(unix_timestamp(sysdate(3)) * 1000) as now_ms) c
    where w.worker_id = p_shard and w.kind = 'worker' and (w.expires_ms is null or w.expires_ms < c.now_ms));
  if v_ahead between 1 and 1000 then
    do sleep(v_ahead / 1000);
  end if;
  set v_last_ms = sheaf__claim_own_shard(p_shard, false);
  insert ignore into sheaf_logical_shards (shard_id) values (p_shard);
end;
-- sheaf:break

drop procedure if exists {state}.sheaf__check_owned_shard;
-- sheaf:break

-- Refuses a shard outside the layout (30001) or one this database does not issue (30015).
create definer = current_user procedure {state}.sheaf__check_owned_shard(in p_shard integer)
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

drop function if exists {state}.sheaf_close_worker;
-- sheaf:break

-- Ends a lease as its holder saw it: frees the worker id and records the last millisecond actually
-- issued, which may be below the bound the heartbeats recorded (sheaf_release_worker only raises
-- it). False, changing nothing, when the token no longer holds the id.
create definer = current_user function {state}.sheaf_close_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
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

drop function if exists {state}.sheaf__claim;
-- sheaf:break

-- The claim itself, without checking the shard against the configured layout (sheaf_configure
-- claims before it changes the layout). On a duplicate key, `insert … on duplicate key update`
-- locks the row exclusively (a plain insert would lock it shared, and a claim and a lease that both
-- held it shared could not both upgrade: a deadlock): the row is this statement's until it commits,
-- and a lease waiting for it re-reads it afterwards. A row this call inserted passes every check.
create definer = current_user function {state}.sheaf__claim(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
  returns bigint
  not deterministic modifies sql data sql security invoker
begin
  declare v_kind varchar(16);
  declare v_db char(36);
  declare v_holder varchar(255);
  declare v_expires, v_last, v_since bigint;
  declare v_now bigint default floor(unix_timestamp(sysdate(3)) * 1000);
  declare v_mark bigint default if(coalesce(p_pending, false), 9223372036854775807, null);
  declare v_want char(36) default lower(p_database_id);
  if p_shard is null or p_shard < 0 or v_want is null or p_holder is null or p_holder = ''
      or not (v_want regexp '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') then
    call sheaf__fail(30002, left(concat('sheaf: claim_shard needs a shard, a uuid database_id and a holder, not ',
      coalesce(p_shard, 'null'), ', ', coalesce(quote(p_database_id), 'null'), ' and ',
      coalesce(quote(p_holder), 'null')), 128));
  end if;
  insert into sheaf_workers (worker_id, kind, database_id, holder, expires_ms, heartbeat_ms)
    values (p_shard, 'database', v_want, p_holder, v_mark, v_now)
    on duplicate key update worker_id = worker_id;
  select kind, database_id, holder, expires_ms, last_timestamp_ms, heartbeat_ms
    into v_kind, v_db, v_holder, v_expires, v_last, v_since
    from sheaf_workers where worker_id = p_shard for update;
  if v_kind = 'database' and v_db <> v_want
      and not (v_expires <=> 9223372036854775807 and cast(v_holder as binary) = cast(p_holder as binary)) then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is held by database ', quote(v_holder),
      ' (', v_db, ')', if(v_expires <=> 9223372036854775807, concat(', pending since ', sheaf__iso(v_since)), '')),
      128));
  end if;
  if v_kind = 'worker' and v_expires >= v_now then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is leased by worker ', quote(v_holder), ' until ',
      sheaf__iso(v_expires), ': stop it or choose another shard'), 128));
  end if;
  if v_kind = 'worker' and v_last >= v_now then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' was issued by a worker up to ',
      sheaf__iso(v_last), ', after this clock (', sheaf__iso(v_now), ')'), 128));
  end if;
  update sheaf_workers
    set kind = 'database', database_id = v_want, holder = p_holder, lease_token = null,
      expires_ms = if(v_kind = 'database' and v_db = v_want and v_expires is null, null, v_mark),
      heartbeat_ms = if(v_kind = 'database', heartbeat_ms, v_now)
    where worker_id = p_shard;
  return v_last;
end;
-- sheaf:break

drop function if exists {state}.sheaf_claim_shard;
-- sheaf:break

-- Records that database `p_database_id`, described by `p_holder`, issues the ids of `p_shard`;
-- returns the last millisecond an earlier holder of the value recorded, which the caller's clock
-- must have passed (0 for a value never taken). Idempotent for the same database. `p_pending`: the
-- claim of an install not yet done, which a rerun of that install (same holder text) may take over,
-- and which stays taken until the install confirms it (the same call with p_pending false) or an
-- admin releases it. Refused (30016, naming the holder) while another database holds the value, a
-- worker lease on it is live, or a worker issued its ids up to a later time. A function, so that it
-- is one statement: in autocommit, one transaction, whether called alone, from sheaf_configure or
-- by the installer of another database.
create definer = current_user function {state}.sheaf_claim_shard(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
  returns bigint
  not deterministic modifies sql data sql security invoker
begin
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  return sheaf__claim(p_shard, p_database_id, p_holder, p_pending);
end;
-- sheaf:break

drop function if exists {state}.sheaf_release_shard;
-- sheaf:break

-- Gives a database's shard back to the id space, recording `p_last_ms`, the last millisecond its ids
-- were issued at: a worker that leases the value later starts above it. False, changing nothing,
-- when `p_database_id` does not hold the value.
create definer = current_user function {state}.sheaf_release_shard(p_shard integer, p_database_id char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data sql security invoker
begin
  if p_shard is null or p_database_id is null or p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, left(concat('sheaf: release_shard needs a shard, a database_id and a last_ms of 0 or ',
      'more, not ', coalesce(p_shard, 'null'), ', ', coalesce(p_database_id, 'null'), ', ', coalesce(p_last_ms, 'null')),
      128));
  end if;
  update sheaf_workers
    set kind = 'worker', database_id = null, holder = null, lease_token = null, expires_ms = null,
      last_timestamp_ms = greatest(last_timestamp_ms, p_last_ms)
    where worker_id = p_shard and kind = 'database' and database_id = lower(p_database_id);
  return row_count() = 1;
end;
-- sheaf:break

drop function if exists {state}.sheaf__claim_own_shard;
-- sheaf:break

-- Claims a value for this database. A database registered elsewhere takes a shard only when its
-- installer registered it there first and says so in the session (@sheaf_registered_shard = N).
-- Reads no sheaf_workers row before the claim locks it: called from a statement that is not a plain
-- SELECT, InnoDB reads with shared locks, and a shared lock upgraded to the claim's exclusive one
-- deadlocks with a lease waiting for the row.
create definer = current_user function {state}.sheaf__claim_own_shard(p_shard integer, p_pending boolean) returns bigint
  not deterministic modifies sql data sql security invoker
begin
  declare v_db char(36);
  declare v_name, v_registry varchar(255);
  select database_id, database_name, registry into v_db, v_name, v_registry from sheaf_settings where singleton = 1;
  if v_registry is not null and not (cast(@sheaf_registered_shard as char) <=> cast(p_shard as char)) then
    call sheaf__fail(30017, left(concat('sheaf: register shard ', p_shard,
      ' in the registry of this database''s shards first (install with it): ', v_registry), 128));
  end if;
  return sheaf__claim(p_shard, v_db, v_name, p_pending);
end;
-- sheaf:break

drop procedure if exists {state}.sheaf__use_registry;
-- sheaf:break

-- Records, from the installer, that this database's shards are registered in `p_registry` (a
-- description of the registry database); NULL makes this database its own registry again.
create definer = current_user procedure {state}.sheaf__use_registry(in p_registry varchar(255))
  not deterministic modifies sql data sql security invoker
  update sheaf_settings set registry = p_registry where singleton = 1;
-- sheaf:break

drop procedure if exists {state}.sheaf__check_lease_args;
-- sheaf:break

-- Refuses a lease in a database registered elsewhere (30017), and arguments a lease cannot take.
create definer = current_user procedure {state}.sheaf__check_lease_args(in p_holder varchar(255), in p_lease_ms integer)
  not deterministic reads sql data
begin
  declare v_registry varchar(255);
  select registry into v_registry from sheaf_settings where singleton = 1;
  if v_registry is not null then
    call sheaf__fail(30017, left(concat('sheaf: worker ids are leased from the registry of this database''s ',
      'shards, not here: ', v_registry), 128));
  end if;
  if p_holder is null or p_holder = '' then
    call sheaf__fail(30002, concat('sheaf: worker holder must be non-empty text, not ',
      coalesce(quote(p_holder), 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: lease_ms must be at least 1, not ', coalesce(p_lease_ms, 'null')));
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf__take_worker;
-- sheaf:break

-- Takes worker id `p_id` when it has no row, or a worker row whose lease is free or expired, and
-- sets `p_token` to the new lease's token; NULL when another holder has it. The insert (of a new
-- id) or the update (re-checked on the current row under its lock) is the arbiter; in autocommit
-- each commits on its own, so no lock outlives it. Runs as its definer for the two lease routines.
create definer = current_user procedure {state}.sheaf__take_worker(in p_id integer, in p_holder varchar(255), in p_lease_ms integer,
  out p_token char(36))
  not deterministic modifies sql data
begin
  declare v_token char(36) default uuid();
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  insert into sheaf_workers (worker_id, holder, lease_token, expires_ms, heartbeat_ms)
    values (p_id, p_holder, v_token, sheaf__now_ms() + p_lease_ms, sheaf__now_ms());
  if v_taken then
    update sheaf_workers
      set holder = p_holder, lease_token = v_token, expires_ms = sheaf__now_ms() + p_lease_ms,
        heartbeat_ms = sheaf__now_ms()
      where worker_id = p_id and kind = 'worker' and (expires_ms is null or expires_ms < sheaf__now_ms());
    if row_count() <> 1 then
      set v_token = null;
    end if;
  end if;
  set p_token = v_token;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_lease_worker_id;
-- sheaf:break

-- Leases exactly worker id `p_worker_id`, returning the row sheaf_lease_worker returns, or says who
-- holds it (30016): the database whose shard it is, or the holder of a live lease.
create definer = current_user procedure {state}.sheaf_lease_worker_id(in p_holder varchar(255), in p_lease_ms integer, in p_worker_id integer)
  not deterministic modifies sql data
begin
  declare v_bits integer;
  declare v_token, v_db char(36);
  declare v_kind varchar(16);
  declare v_holder varchar(255);
  declare v_expires bigint;
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  select shard_bits into v_bits from sheaf_settings where singleton = 1;
  if p_worker_id is null or p_worker_id < 0 or p_worker_id > (1 << v_bits) - 1 then
    call sheaf__fail(30001, concat('sheaf: worker id ', coalesce(p_worker_id, 'null'), ' does not fit ', v_bits,
      ' shard bits (max ', (1 << v_bits) - 1, ')'));
  end if;
  call sheaf__take_worker(p_worker_id, p_holder, p_lease_ms, v_token);
  if v_token is not null then
    select worker_id, lease_token, last_timestamp_ms from sheaf_workers
      where worker_id = p_worker_id and lease_token = v_token;
  else
    select kind, database_id, holder, expires_ms into v_kind, v_db, v_holder, v_expires
      from sheaf_workers where worker_id = p_worker_id;
    if v_kind = 'database' then
      call sheaf__fail(30016, left(concat('sheaf: worker id ', p_worker_id, ' is the shard of database ',
        quote(v_holder), ' (', v_db, ')'), 128));
    end if;
    call sheaf__fail(30016, left(concat('sheaf: worker id ', p_worker_id, ' is leased by ', quote(v_holder), ' until ',
      coalesce(sheaf__iso(v_expires), 'now')), 128));
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_ticket_series;
-- sheaf:break

-- sheaf 0007 (MySQL/MariaDB): sheaf_ticket_series(name), as PostgreSQL's 0010: one row (step,
-- ticket_offset) of a ticket on this server. TicketClient reads it to check, before its first
-- ticket, that no two of its servers hand out one value (also beside Flickr-classic servers, whose
-- series it reads from the session's auto_increment_increment/offset). It runs as its definer like
-- sheaf_next_ticket, so an account needs EXECUTE on it and no right on sheaf_tickets; accounts
-- granted routine by routine before this version need that grant added (`sheaf grant` does it).
-- Needs: 0001-0006 (0002: sheaf__fail, 0003: sheaf_tickets). MariaDB 10.3+ or MySQL 8.0+.

create definer = current_user procedure {state}.sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
begin
  declare v_step, v_offset integer;
  select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  select v_step as step, v_offset as ticket_offset;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_create_segment_class;
-- sheaf:break

-- Idempotent like sheaf_create_segment: the same tag, class and step again does nothing, as long
-- as max_id was not set higher than the segment reached; anything else is NAME_TAKEN (30010).
create definer = current_user procedure {state}.sheaf_create_segment_class(in p_biz_tag varchar(128), in p_delta integer, in p_remainder integer,
  in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_delta, v_remainder integer;
  declare v_max bigint;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_biz_tag is null or p_biz_tag = '' then
    call sheaf__fail(30002, concat('sheaf: segment biz_tag must be non-empty text, not ',
      coalesce(quote(p_biz_tag), 'null')));
  end if;
  if p_delta is null or p_delta < 1 or p_remainder is null or p_remainder < 0 or p_remainder >= p_delta then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': residue class ',
      coalesce(p_remainder, 'null'), ' mod ', coalesce(p_delta, 'null'), ' must satisfy 0 <= remainder < delta'), 128));
  end if;
  if p_step is null or p_step < 1 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': step must be at least 1, not ',
      coalesce(p_step, 'null')), 128));
  end if;
  if p_max_id is null or p_max_id < 0 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': max_id must be 0 or more, not ',
      coalesce(p_max_id, 'null')), 128));
  end if;
  insert into sheaf_segments (biz_tag, max_id, step, description, delta, remainder)
    values (p_biz_tag, p_max_id, p_step, p_description, p_delta, p_remainder);
  if v_taken then
    select step, max_id, delta, remainder into v_step, v_max, v_delta, v_remainder
      from sheaf_segments where biz_tag = p_biz_tag;
    if (v_delta, v_remainder, v_step) <> (p_delta, p_remainder, p_step) or v_max < p_max_id then
      call sheaf__fail(30010, left(concat('sheaf: segment ', quote(p_biz_tag), ' already exists with class ',
        v_remainder, ' mod ', v_delta, ', step ', v_step, ' and max_id ', v_max, ', not class ', p_remainder, ' mod ',
        p_delta, ', step ', p_step, ' and max_id ', p_max_id), 128));
    end if;
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_segment_class;
-- sheaf:break

-- The class of a tag in this database: one row (delta, remainder).
create definer = current_user procedure {state}.sheaf_segment_class(in p_biz_tag varchar(128))
  not deterministic reads sql data
begin
  declare v_delta, v_remainder integer;
  select delta, remainder into v_delta, v_remainder from sheaf_segments where biz_tag = p_biz_tag;
  if v_delta is null then
    call sheaf__fail(30007, left(concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
      '; create it with sheaf_create_segment_class'), 128));
  end if;
  select v_delta as delta, v_remainder as remainder;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_alloc_segment_class;
-- sheaf:break

-- Takes the next `step` ids of the class (the row's step when p_step is null, read once) in one
-- UPDATE. The range passed over is (old max_id, old max_id + step × delta]: exactly `step` ids of
-- each class, the first at old max_id + 1 + ((remainder − (old max_id + 1)) mod delta). The new
-- max_id comes out through LAST_INSERT_ID(expr), as in sheaf_alloc_segment, and the bound is
-- checked before adding: nothing overflows.
create definer = current_user procedure {state}.sheaf_alloc_segment_class(in p_biz_tag varchar(128), in p_step integer, in p_delta integer,
  in p_remainder integer)
  not deterministic modifies sql data
begin
  declare v_step, v_width, v_old, v_first, v_max bigint;
  declare v_delta, v_remainder integer;
  declare v_done boolean default false;
  if p_delta is null or p_delta < 1 or p_remainder is null or p_remainder < 0 or p_remainder >= p_delta then
    call sheaf__fail(30002, left(concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'), ': residue class ',
      coalesce(p_remainder, 'null'), ' mod ', coalesce(p_delta, 'null'), ' must satisfy 0 <= remainder < delta'), 128));
  end if;
  if p_step is not null and p_step < 1 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'),
      ': step must be at least 1, not ', p_step), 128));
  end if;
  set v_step = coalesce(p_step, (select step from sheaf_segments where biz_tag = p_biz_tag));
  if v_step is not null then
    set v_width = v_step * p_delta;
    update sheaf_segments set max_id = last_insert_id(max_id + v_width), updated_at = current_timestamp(3)
      where biz_tag = p_biz_tag and delta = p_delta and remainder = p_remainder
        and max_id <= 9223372036854775807 - v_width;
    set v_done = row_count() = 1;
  end if;
  if v_done then
    set v_old = last_insert_id();
    set v_old = v_old - v_width;
    set v_first = v_old + 1 + mod(p_remainder - mod(v_old + 1, p_delta) + p_delta, p_delta);
    select v_first as first_id, v_first + (v_step - 1) * p_delta as last_id;
  else
    set v_delta = (select delta from sheaf_segments where biz_tag = p_biz_tag);
    if v_delta is null then
      call sheaf__fail(30007, left(concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
        '; create it with sheaf_create_segment_class'), 128));
    end if;
    select remainder, max_id into v_remainder, v_max from sheaf_segments where biz_tag = p_biz_tag;
    if v_delta <> p_delta or v_remainder <> p_remainder then
      call sheaf__fail(30018, left(concat('sheaf: segment ', quote(p_biz_tag), ' is residue class ', v_remainder,
        ' mod ', v_delta, ' in this database, not ', p_remainder, ' mod ', p_delta), 128));
    end if;
    call sheaf__fail(30011, left(concat('sheaf: segment ', quote(p_biz_tag), ' is exhausted: max_id ', v_max,
      ' + step ', v_step, ' * delta ', p_delta, ' exceeds 9223372036854775807'), 128));
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_adopt_ticket;
-- sheaf:break

-- One row (first_ticket, created). Runs as its caller, like sheaf_create_ticket: only an account
-- with rights on sheaf_tickets and sheaf_ticket_counter (an admin) can. Changes the caller's
-- LAST_INSERT_ID() when it creates the ticket.
create definer = current_user procedure {state}.sheaf_adopt_ticket(in p_name varchar(64), in p_step integer, in p_offset integer, in p_above bigint,
  in p_headroom bigint)
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_offset integer;
  declare v_first, v_k bigint;
  declare v_target decimal(40, 0);
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_name is null or p_name = '' then
    -- QUOTE(NULL) is the word NULL, not NULL.
    call sheaf__fail(30002, concat('sheaf: ticket name must be non-empty text, not ', if(p_name is null, 'null',
      quote(p_name))));
  end if;
  if p_step is null or p_step < 1 or p_offset is null or p_offset < 1 or p_offset > p_step then
    call sheaf__fail(30002, left(concat('sheaf: ticket ', quote(p_name), ': step ', coalesce(p_step, 'null'),
      ' and offset ', coalesce(p_offset, 'null'), ' must satisfy 1 <= offset <= step'), 128));
  end if;
  if p_above is null or p_above < 0 or p_headroom is null or p_headroom < 0 then
    call sheaf__fail(30002, left(concat('sheaf: ticket ', quote(p_name), ': above ', coalesce(p_above, 'null'),
      ' and headroom ', coalesce(p_headroom, 'null'), ' must be 0 or more'), 128));
  end if;
  -- The first value of the series past above + headroom tickets: the last one up to there, plus a
  -- step. Decimal, so no sum overflows; mod, not a division, which decimal rounds.
  set v_target = p_above + cast(p_headroom as decimal(40, 0)) * p_step;
  set v_target = if(v_target < p_offset, p_offset, v_target - mod(v_target - p_offset, p_step) + p_step);
  if v_target > 9223372036854775807 then
    call sheaf__fail(30009, left(concat('sheaf: ticket ', quote(p_name), ' cannot start above ', p_above, ' plus ',
      p_headroom, ' tickets of step ', p_step, ': past 9223372036854775807'), 128));
  end if;
  select step, ticket_offset, coalesce(first_ticket, ticket_offset) into v_step, v_offset, v_first
    from sheaf_tickets where name = p_name;
  if v_step is null then
    -- Every value the counter hands out later is above v_k, so the name's tickets start at v_target.
    insert into sheaf_ticket_counter (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_ticket_counter where k = v_k;
    insert into sheaf_tickets (name, step, ticket_offset, counter_shift, first_ticket)
      values (p_name, p_step, p_offset, (v_target - p_offset) div p_step - v_k, v_target);
    if not v_taken then
      select cast(v_target as signed) as first_ticket, true as created;
    else
      -- A concurrent call created the ticket first: check it as an existing one.
      select step, ticket_offset, coalesce(first_ticket, ticket_offset) into v_step, v_offset, v_first
        from sheaf_tickets where name = p_name;
    end if;
  end if;
  if v_first is not null then
    if (v_step, v_offset) <> (p_step, p_offset) then
      call sheaf__fail(30010, left(concat('sheaf: ticket ', quote(p_name), ' already exists with step ', v_step,
        ' and offset ', v_offset, ', not step ', p_step, ' and offset ', p_offset), 128));
    end if;
    if v_first <= p_above then
      call sheaf__fail(30021, left(concat('sheaf: ticket ', quote(p_name), ' already starts at ', v_first,
        ', not above ', p_above, ': its tickets and those of the servers it takes over may be equal'), 128));
    end if;
    select v_first as first_ticket, false as created;
  end if;
end;
-- sheaf:break

drop function if exists {state}.sheaf__claim_chunk;
-- sheaf:break

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
create definer = current_user function {state}.sheaf__claim_chunk() returns bigint
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
  set v_last = if(@sheaf_id_db <=> substring(database(), 7) and @sheaf_id_tick regexp '^[0-9]{1,18}$', @sheaf_id_tick, null);
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
    @sheaf_id_db = substring(database(), 7), @sheaf_id_until = (v_tick + v_epoch + 1) / 1000, @sheaf_id_stmt = @@timestamp;
  return v_base;
end;
-- sheaf:break

-- Moves the tables while they are still in the application's database (once, atomically).
drop procedure if exists {state}.sheaf__move_0012;
-- sheaf:break

create definer = current_user procedure {state}.sheaf__move_0012()
  not deterministic modifies sql data
begin
  if exists (select 1 from information_schema.tables
      where table_schema = substring(database(), 7) and table_name = 'sheaf_settings') then
    rename table
      {app}.sheaf_schema_versions to {state}.sheaf_schema_versions,
      {app}.sheaf_settings to {state}.sheaf_settings,
      {app}.sheaf_chunks to {state}.sheaf_chunks,
      {app}.sheaf_tickets to {state}.sheaf_tickets,
      {app}.sheaf_ticket_counter to {state}.sheaf_ticket_counter,
      {app}.sheaf_segments to {state}.sheaf_segments,
      {app}.sheaf_workers to {state}.sheaf_workers,
      {app}.sheaf_logical_shards to {state}.sheaf_logical_shards;
  end if;
end;
-- sheaf:break

call {state}.sheaf__move_0012();
-- sheaf:break

drop procedure {state}.sheaf__move_0012;
-- sheaf:break

-- The forwards: what apps call (as the owner, like the routines they forward to) and what admins
-- call (as their caller, like sheaf_configure).
drop function if exists {app}.sheaf_next_id;
-- sheaf:break

create definer = current_user function {app}.sheaf_next_id() returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_id();
-- sheaf:break

drop function if exists {app}.sheaf_next_shard_id;
-- sheaf:break

create definer = current_user function {app}.sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_shard_id(p_shard);
-- sheaf:break

drop procedure if exists {app}.sheaf_next_ids;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_next_ids(in p_n integer)
  not deterministic modifies sql data
  call {state}.sheaf_next_ids(p_n);
-- sheaf:break

drop procedure if exists {app}.sheaf_next_shard_ids;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_next_shard_ids(in p_n integer, in p_shard integer)
  not deterministic modifies sql data
  call {state}.sheaf_next_shard_ids(p_n, p_shard);
-- sheaf:break

drop function if exists {app}.sheaf_decode_id;
-- sheaf:break

create definer = current_user function {app}.sheaf_decode_id(p_id bigint) returns varchar(100)
  not deterministic reads sql data
  return {state}.sheaf_decode_id(p_id);
-- sheaf:break

drop function if exists {app}.sheaf_id_time;
-- sheaf:break

create definer = current_user function {app}.sheaf_id_time(p_id bigint) returns datetime(3)
  not deterministic reads sql data
  return {state}.sheaf_id_time(p_id);
-- sheaf:break

drop function if exists {app}.sheaf_id_shard;
-- sheaf:break

create definer = current_user function {app}.sheaf_id_shard(p_id bigint) returns integer
  not deterministic reads sql data
  return {state}.sheaf_id_shard(p_id);
-- sheaf:break

drop function if exists {app}.sheaf_id_sequence;
-- sheaf:break

create definer = current_user function {app}.sheaf_id_sequence(p_id bigint) returns integer
  not deterministic reads sql data
  return {state}.sheaf_id_sequence(p_id);
-- sheaf:break

drop function if exists {app}.sheaf_id_floor;
-- sheaf:break

create definer = current_user function {app}.sheaf_id_floor(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_id_floor(p_at);
-- sheaf:break

drop function if exists {app}.sheaf_id_ceiling;
-- sheaf:break

create definer = current_user function {app}.sheaf_id_ceiling(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_id_ceiling(p_at);
-- sheaf:break

drop function if exists {app}.sheaf_encode_id;
-- sheaf:break

create definer = current_user function {app}.sheaf_encode_id(p_at datetime(3), p_shard integer, p_sequence integer) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_encode_id(p_at, p_shard, p_sequence);
-- sheaf:break

drop function if exists {app}.sheaf_next_ticket;
-- sheaf:break

create definer = current_user function {app}.sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_ticket(p_name);
-- sheaf:break

drop procedure if exists {app}.sheaf_ticket_series;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
  call {state}.sheaf_ticket_series(p_name);
-- sheaf:break

drop procedure if exists {app}.sheaf_alloc_segment;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
  not deterministic modifies sql data
  call {state}.sheaf_alloc_segment(p_biz_tag, p_step);
-- sheaf:break

drop procedure if exists {app}.sheaf_segment_class;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_segment_class(in p_biz_tag varchar(128))
  not deterministic reads sql data
  call {state}.sheaf_segment_class(p_biz_tag);
-- sheaf:break

drop procedure if exists {app}.sheaf_alloc_segment_class;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_alloc_segment_class(in p_biz_tag varchar(128), in p_step integer, in p_delta integer, in p_remainder integer)
  not deterministic modifies sql data
  call {state}.sheaf_alloc_segment_class(p_biz_tag, p_step, p_delta, p_remainder);
-- sheaf:break

drop procedure if exists {app}.sheaf_lease_worker;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer, in p_max_worker integer)
  not deterministic modifies sql data
  call {state}.sheaf_lease_worker(p_holder, p_lease_ms, p_max_worker);
-- sheaf:break

drop procedure if exists {app}.sheaf_lease_worker_id;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_lease_worker_id(in p_holder varchar(255), in p_lease_ms integer, in p_worker_id integer)
  not deterministic modifies sql data
  call {state}.sheaf_lease_worker_id(p_holder, p_lease_ms, p_worker_id);
-- sheaf:break

drop function if exists {app}.sheaf_heartbeat_worker;
-- sheaf:break

create definer = current_user function {app}.sheaf_heartbeat_worker(p_worker_id integer, p_token char(36), p_last_ms bigint, p_lease_ms integer) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_heartbeat_worker(p_worker_id, p_token, p_last_ms, p_lease_ms);
-- sheaf:break

drop function if exists {app}.sheaf_release_worker;
-- sheaf:break

create definer = current_user function {app}.sheaf_release_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
  return {state}.sheaf_release_worker(p_worker_id, p_token, p_last_ms);
-- sheaf:break

drop function if exists {app}.sheaf_close_worker;
-- sheaf:break

create definer = current_user function {app}.sheaf_close_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
  return {state}.sheaf_close_worker(p_worker_id, p_token, p_last_ms);
-- sheaf:break

drop procedure if exists {app}.sheaf_configure;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_configure(in p_shard integer, in p_layout varchar(40), in p_epoch bigint, in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_configure(p_shard, p_layout, p_epoch, p_time_bits, p_shard_bits, p_seq_bits, p_test);
-- sheaf:break

drop procedure if exists {app}.sheaf_create_ticket;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_ticket(in p_name varchar(64), in p_step integer, in p_offset integer)
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_create_ticket(p_name, p_step, p_offset);
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_segment(in p_biz_tag varchar(128), in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_create_segment(p_biz_tag, p_step, p_max_id, p_description);
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment_class;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_segment_class(in p_biz_tag varchar(128), in p_delta integer, in p_remainder integer, in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_create_segment_class(p_biz_tag, p_delta, p_remainder, p_step, p_max_id, p_description);
-- sheaf:break

drop procedure if exists {app}.sheaf_add_shard;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_add_shard(p_shard);
-- sheaf:break

drop procedure if exists {app}.sheaf_adopt_ticket;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_adopt_ticket(in p_name varchar(64), in p_step integer, in p_offset integer, in p_above bigint, in p_headroom bigint)
  not deterministic modifies sql data sql security invoker
  call {state}.sheaf_adopt_ticket(p_name, p_step, p_offset, p_above, p_headroom);
-- sheaf:break

drop function if exists {app}.sheaf_claim_shard;
-- sheaf:break

create definer = current_user function {app}.sheaf_claim_shard(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean) returns bigint
  not deterministic modifies sql data sql security invoker
  return {state}.sheaf_claim_shard(p_shard, p_database_id, p_holder, p_pending);
-- sheaf:break

drop function if exists {app}.sheaf_release_shard;
-- sheaf:break

create definer = current_user function {app}.sheaf_release_shard(p_shard integer, p_database_id char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data sql security invoker
  return {state}.sheaf_release_shard(p_shard, p_database_id, p_last_ms);
-- sheaf:break

-- The helpers stay only in {state}.
drop procedure if exists {app}.sheaf__fail;
-- sheaf:break

drop procedure if exists {app}.sheaf__check_shard;
-- sheaf:break

drop function if exists {app}.sheaf__iso;
-- sheaf:break

drop function if exists {app}.sheaf__max_tick;
-- sheaf:break

drop function if exists {app}.sheaf__tick;
-- sheaf:break

drop function if exists {app}.sheaf__check_id;
-- sheaf:break

drop function if exists {app}.sheaf__now_ms;
-- sheaf:break

drop procedure if exists {app}.sheaf__check_owned_shard;
-- sheaf:break

drop function if exists {app}.sheaf__claim;
-- sheaf:break

drop function if exists {app}.sheaf__claim_own_shard;
-- sheaf:break

drop procedure if exists {app}.sheaf__use_registry;
-- sheaf:break

drop procedure if exists {app}.sheaf__check_lease_args;
-- sheaf:break

drop procedure if exists {app}.sheaf__take_worker;
-- sheaf:break

drop function if exists {app}.sheaf__claim_chunk;
-- sheaf:break
