-- sheaf 0015 (MySQL/MariaDB): one node, one shard on Galera. Every node of a Galera cluster accepts
-- writes, and everything InnoDB holds is replicated, sheaf's settings row included: before this file
-- every node issued the configured shard, and two nodes' ids differed only through the chunk counter,
-- whose values Galera keeps apart only while wsrep_auto_increment_control is ON. With it OFF two
-- nodes claimed the same chunk and issued the same ids, and on any setting two nodes' claims wrote
-- the same keys of sheaf_chunks (the explicit value that moves the counter to the clock), which
-- certification aborted, in the middle of the application's transaction (docs/galera.md).
-- Now:
-- - a Galera node issues the shard bound to its `wsrep_node_name` in sheaf_nodes (sheaf_bind_node,
--   which `sheaf install --shard N` calls on that node), and nothing when it has none (30025,
--   NODE_UNBOUND). The name is the node's own: replication and state transfers do not carry it, and
--   sheaf_bind_node refuses a name two members of the cluster share;
-- - each bound node claims chunks from a counter table of its own (sheaf_node_chunks_<slot>, slot 0
--   to 7: at most eight nodes issue ids). Galera still replicates the claims (InnoDB), but no other
--   node writes that table, so certification never aborts a claim and no replicated claim waits for
--   a lock of a local transaction (on one shared table, the rows of two nodes' claims sat side by
--   side, and now and then a replicated claim waited for the lock of a local one: Galera aborted the
--   local transaction, and an INSERT … RETURNING so aborted never got its answer). A node-local
--   engine (MEMORY, Aria) is not replicated, but a statement that may write such a table locks it
--   whole until it ends: it halved the cluster's inserts. Two nodes' counters are independent;
--   their ids differ in the shard field;
-- - the claim's explicit row (the one that moves a counter to the clock) has a new `s` at every
--   claim (uuid_short(), this server's own sequence) instead of the session's connection id: a key
--   that a row deleted by an open transaction still had took a next-key lock, which made other
--   sessions' inserts into that gap wait (on one server too);
-- - the layout lock's probe allows for auto_increment_increment, which Galera sets to the cluster's
--   size (a counter moved by one step is not "ids issued"), and counts the nodes' claims.
-- - tickets on a bound Galera node come from a counter of its own too (sheaf_node_tickets_<slot>),
--   on a series of its own: ((k - 1 + counter_shift) * 8 + slot) * step + ticket_offset, which
--   sheaf_ticket_series reports (step * 8, ticket_offset + slot * step), so that a TicketClient over
--   the nodes sees series that never meet. The shared counter, whose values two nodes took alike
--   when wsrep_auto_increment_control was OFF, is no longer drawn from there; sheaf_bind_node starts
--   the node's counter at the shared one's, above every ticket drawn before.
-- Off Galera (`wsrep_on` OFF) ids and tickets are as before: the configured shard, the shared counter.
-- Needs: 0012-0014. MariaDB 10.4+ (Galera 4) or MySQL 8.0, where the installer reads the wsrep
-- variables, which MySQL lacks, as "not a Galera node".

create table if not exists {state}.sheaf_nodes (
  node varchar(64) not null primary key,
  shard_id integer not null,
  slot integer not null check (slot between 0 and 7),
  bound_at datetime(3) not null default current_timestamp(3),
  unique key sheaf_nodes_shard (shard_id),
  unique key sheaf_nodes_slot (slot)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_0 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_1 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_2 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_3 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_4 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_5 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_6 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_chunks_7 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_0 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_1 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_2 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_3 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_4 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_5 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_6 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table if not exists {state}.sheaf_node_tickets_7 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

drop procedure if exists {state}.sheaf__check_owned_shard;
-- sheaf:break

-- Refuses a shard outside the layout (30001) or one this database does not issue (30015). On a Galera
-- node that is every shard but the node's own (30025 when it has none): logical shards are the
-- database's, and every node has the database.
create definer = current_user procedure {state}.sheaf__check_owned_shard(in p_shard integer)
  not deterministic reads sql data
begin
  declare v_shard, v_bits integer;
  declare v_node varchar(64);
  select shard_id, shard_bits into v_shard, v_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_bits);
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    set v_shard = (select shard_id from sheaf_nodes where node = v_node);
    if v_shard is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    if p_shard <> v_shard then
      call sheaf__fail(30015, left(concat('sheaf: shard ', p_shard, ' is not issued by Galera node ', v_node,
        ' (shard ', v_shard, '): each node issues its own'), 128));
    end if;
  elseif p_shard <> v_shard and not exists (select 1 from sheaf_logical_shards where shard_id = p_shard) then
    call sheaf__fail(30015, concat('sheaf: shard ', p_shard, ' is not issued by this database (shard ', v_shard,
      '); add it with sheaf_add_shard(', p_shard, ') if no other database issues it'));
  end if;
end;
-- sheaf:break

drop function if exists {state}.sheaf__node_claim;
-- sheaf:break

-- sheaf__claim_chunk's two row operations on a Galera node's own counter (slot 0 to 7): with p_first_k
-- above 1, first moves the counter to p_first_k - 1 (a no-op when it is past it); then takes the next
-- value and returns it. A statement names its tables, hence one branch per slot.
create definer = current_user function {state}.sheaf__node_claim(p_slot integer, p_first_k bigint) returns bigint
  not deterministic modifies sql data
begin
  declare v_k bigint;
  declare v_s bigint default uuid_short() & 9223372036854775807;
  case p_slot
  when 0 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_0 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_0 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_0 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_0 where k = v_k and s = 0;
  when 1 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_1 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_1 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_1 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_1 where k = v_k and s = 0;
  when 2 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_2 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_2 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_2 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_2 where k = v_k and s = 0;
  when 3 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_3 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_3 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_3 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_3 where k = v_k and s = 0;
  when 4 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_4 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_4 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_4 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_4 where k = v_k and s = 0;
  when 5 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_5 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_5 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_5 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_5 where k = v_k and s = 0;
  when 6 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_6 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_6 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_6 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_6 where k = v_k and s = 0;
  when 7 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_7 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_7 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_7 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_7 where k = v_k and s = 0;
  end case;
  return v_k;
end;
-- sheaf:break

drop function if exists {state}.sheaf__claim_chunk;
-- sheaf:break

-- A new chunk and its first id, as in 0010: one AUTO_INCREMENT value of sheaf_chunks, after moving
-- the counter forward to the clock when it is behind. Chunks are 2^(sequence_bits - 2) ids, four per
-- millisecond; more claims in a millisecond borrow the next one instead of wrapping, and a clock that
-- steps back finds the counter ahead of it: ids continue above the last one issued. On a Galera node
-- the shard is the node's own (30025 without one), and so is the counter: sheaf__node_claim.
create definer = current_user function {state}.sheaf__claim_chunk() returns bigint
  not deterministic modifies sql data
begin
  declare v_shard, v_time_bits, v_shard_bits, v_seq_bits, v_unit_bits, v_chunk_bits, v_low_bits integer;
  declare v_epoch, v_clock, v_now, v_last, v_max_tick, v_first_k, v_k, v_tick, v_base, v_s bigint;
  declare v_slot integer;
  declare v_ahead, v_hot boolean;
  declare v_name varchar(40);
  declare v_node varchar(64);
  select shard_id, layout_name, epoch_ms, time_bits, shard_bits, sequence_bits
    into v_shard, v_name, v_epoch, v_time_bits, v_shard_bits, v_seq_bits
    from sheaf_settings where singleton = 1;
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    select shard_id, slot into v_shard, v_slot from sheaf_nodes where node = v_node;
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
  end if;
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
  -- As in 0010: a session whose last chunk is at or ahead of the clock claims at once; any other
  -- first moves the counter to the clock (a hot session: 7 ms ahead of it) with an explicit value.
  -- That row's `s` is new at every claim (uuid_short(): this server's own sequence): inserting a key
  -- that a row deleted by an open transaction still has (a session's connection_id, before this
  -- file) takes a next-key lock, which blocked other sessions' inserts into the gap and made Galera
  -- abort the transaction holding it whenever a replicated claim landed there.
  set v_last = if(@sheaf_id_db <=> substring(database(), 7) and @sheaf_id_tick regexp '^[0-9]{1,18}$', @sheaf_id_tick, null);
  set v_ahead = coalesce(v_last >= v_now, false), v_hot = coalesce(v_last >= v_now - 8, false);
  claim: loop
    if not v_ahead then
      set v_first_k = (v_now + if(v_hot, 7, 0)) << v_chunk_bits;
    else
      set v_first_k = 0;
    end if;
    if v_slot is not null then
      set v_k = sheaf__node_claim(v_slot, v_first_k);
    else
      if v_first_k > 1 then
        set v_s = uuid_short() & 9223372036854775807;
        insert ignore into sheaf_chunks (k, s) values (v_first_k - 1, v_s);
        delete from sheaf_chunks where k = v_first_k - 1 and s = v_s;
      end if;
      insert into sheaf_chunks (k) values (null);
      set v_k = last_insert_id();
      delete from sheaf_chunks where k = v_k and s = 0;
    end if;
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

drop function if exists {state}.sheaf_next_id;
-- sheaf:break

-- As in 0012: the session's cached id when the settings row (read in this call) and the clock vouch
-- for it, with the shard field checked against the node's own shard on a Galera node (so a chunk of
-- another node's shard, or one cached before this node was bound, is never taken); otherwise a new
-- chunk. Off Galera the IF reads no sheaf_nodes row.
create definer = current_user function {state}.sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  if @sheaf_id_next between 1 and 9223372036854775807 and @sheaf_id_db = substring(database(), 7) then
    return coalesce((select if(@sheaf_id_next & ((1 << greatest(sequence_bits - 2, 0)) - 1) <> 0
        and (@sheaf_id_next >> sequence_bits) & ((1 << shard_bits) - 1) = if(@@global.wsrep_on,
          (select n.shard_id from sheaf_nodes n where n.node = @@global.wsrep_node_name), shard_id)
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

drop function if exists {state}.sheaf__node_ticket;
-- sheaf:break

-- The next value of a Galera node's ticket counter (slot 0 to 7), first moved to p_floor when that
-- is above it. One branch per slot, as in sheaf__node_claim.
create definer = current_user function {state}.sheaf__node_ticket(p_slot integer, p_floor bigint) returns bigint
  not deterministic modifies sql data
begin
  declare v_k bigint;
  case p_slot
  when 0 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_0 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_0 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_0 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_0 where k = v_k;
  when 1 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_1 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_1 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_1 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_1 where k = v_k;
  when 2 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_2 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_2 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_2 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_2 where k = v_k;
  when 3 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_3 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_3 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_3 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_3 where k = v_k;
  when 4 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_4 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_4 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_4 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_4 where k = v_k;
  when 5 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_5 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_5 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_5 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_5 where k = v_k;
  when 6 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_6 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_6 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_6 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_6 where k = v_k;
  when 7 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_7 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_7 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_7 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_7 where k = v_k;
  end case;
  return v_k;
end;
-- sheaf:break

drop function if exists {state}.sheaf_next_ticket;
-- sheaf:break

-- As in 0012: (k - 1 + counter_shift) * step + ticket_offset. On a Galera node its own counter and
-- series: ((k - 1 + counter_shift) * 8 + slot) * step + ticket_offset (30025 without a shard of its own).
create definer = current_user function {state}.sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
begin
  declare v_step, v_offset, v_slot integer;
  declare v_shift, v_k bigint;
  declare v_node varchar(64);
  select step, ticket_offset, counter_shift into v_step, v_offset, v_shift from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    set v_slot = (select slot from sheaf_nodes where node = v_node);
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    return ((sheaf__node_ticket(v_slot, 0) - 1 + v_shift) * 8 + v_slot) * v_step + v_offset;
  end if;
  insert into sheaf_ticket_counter (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_ticket_counter where k = v_k;
  return (v_k - 1 + v_shift) * v_step + v_offset;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_ticket_series;
-- sheaf:break

-- As in 0012: one row (step, ticket_offset); on a bound Galera node the node's own series.
create definer = current_user procedure {state}.sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
begin
  declare v_step, v_offset, v_slot integer;
  select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  if @@global.wsrep_on then
    set v_slot = (select slot from sheaf_nodes where node = @@global.wsrep_node_name);
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', @@global.wsrep_node_name,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    select v_step * 8 as step, v_offset + v_slot * v_step as ticket_offset;
  else
    select v_step as step, v_offset as ticket_offset;
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_bind_node;
-- sheaf:break

-- Binds this Galera node (its wsrep_node_name) to p_shard and the lowest free counter slot: from then
-- on it issues p_shard, and only it. Idempotent for the shard the node has; refused for another one (a node keeps its shard: ids of
-- the old one may be ahead of the clock), for a shard another node has (30016), for a name two
-- members of the cluster share (30025: they would share one shard), and off Galera (30002). The
-- shard is claimed in the id space for this database first, as sheaf_add_shard claims a logical
-- one. Two nodes binding one shard at once: certification aborts one (1213), and its retry is
-- refused (so is a ninth node). SQL SECURITY INVOKER: an admin's; call it in autocommit.
create definer = current_user procedure {state}.sheaf_bind_node(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_node, v_holder varchar(64);
  declare v_bound, v_slot integer;
  declare v_last_ms, v_first_ticket bigint;
  if not @@global.wsrep_on then
    call sheaf__fail(30002, 'sheaf: sheaf_bind_node is for Galera nodes, and wsrep_on is OFF here');
  end if;
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  set v_node = @@global.wsrep_node_name;
  if (select count(*) from mysql.wsrep_cluster_members where node_name = v_node) > 1 then
    call sheaf__fail(30025, left(concat('sheaf: several Galera nodes are named ', v_node,
      ': give each a wsrep_node_name of its own'), 128));
  end if;
  set v_bound = (select shard_id from sheaf_nodes where node = v_node);
  if v_bound <> p_shard then
    call sheaf__fail(30002, left(concat('sheaf: Galera node ', v_node, ' issues shard ', v_bound,
      ', not ', p_shard, ': a node keeps its shard'), 128));
  end if;
  if v_bound is null then
    set v_holder = (select node from sheaf_nodes where shard_id = p_shard);
    if v_holder is not null then
      call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is taken by Galera node ', v_holder), 128));
    end if;
    set v_slot = (select min(c.slot) from (select 0 slot union all select 1 union all select 2 union all select 3
        union all select 4 union all select 5 union all select 6 union all select 7) c
      where c.slot not in (select slot from sheaf_nodes));
    if v_slot is null then
      call sheaf__fail(30002, 'sheaf: eight Galera nodes issue ids already, each from a counter of its own; no ninth');
    end if;
    set v_last_ms = sheaf__claim_own_shard(p_shard, false);
    insert into sheaf_nodes (node, shard_id, slot) values (v_node, p_shard, v_slot);
    -- Above every ticket the shared counter gave: k there was below its AUTO_INCREMENT.
    set v_first_ticket = sheaf__node_ticket(v_slot, (select auto_increment from information_schema.tables
      where table_schema = database() and table_name = 'sheaf_ticket_counter'));
  end if;
end;
-- sheaf:break

drop procedure if exists {state}.sheaf_configure;
-- sheaf:break

-- As in 0012, with the probe that tells whether ids were issued allowing for the counter's step
-- (auto_increment_increment: the cluster's size on Galera) and counting the Galera nodes' claims.
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
    -- A Galera node's claims move its own counter, which starts at 1.
    select v_k > probe_k + @@auto_increment_increment or exists (select 1 from information_schema.tables
        where table_schema = database() and table_name like 'sheaf\_node\_chunks\_%' and auto_increment > 1)
      into v_issued from sheaf_settings where singleton = 1;
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
  -- A Galera node's shard stays taken: the node issues it whatever the settings say.
  if p_shard <> v_old_shard and not exists (select 1 from sheaf_logical_shards where shard_id = v_old_shard)
      and not exists (select 1 from sheaf_nodes where shard_id = v_old_shard) then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    -- This probe is no id: where none was issued since the last probe, none is issued still.
    update sheaf_settings set probe_k = v_k where singleton = 1 and probe_k + @@auto_increment_increment >= v_k;
    set v_last_ms = greatest((v_k >> (v_old_seq_bits - greatest(v_old_seq_bits - 2, 0))) + v_old_epoch,
      floor(unix_timestamp(sysdate(3)) * 1000)) + 8;
    set v_released = sheaf_release_shard(v_old_shard, v_db, v_last_ms);
  end if;
end;
