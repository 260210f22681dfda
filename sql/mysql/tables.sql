-- The current shape of every table of sheaf's database ({state}, `sheaf_<app>`), columns in the
-- order an install leaves them. The numbered files create and change these tables; a change to one
-- goes in a new numbered file and here. test/sql/mysql-current-definitions.test.ts checks that this
-- file gives the tables an install leaves.

-- The installed files: version, name and checksum of each (the installer creates it first).
create table {state}.sheaf_schema_versions (
  version integer not null primary key,
  name varchar(100) not null,
  checksum char(64) not null,
  installed_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

-- One row: the shard this database issues ids for, its layout, and its name in the id space.
-- `probe_k` is the counter value sheaf_configure took last; a higher counter means ids were issued
-- since. `registry` describes the database that holds this one's shards (NULL: this one).
create table {state}.sheaf_settings (
  singleton tinyint not null primary key default 1 check (singleton = 1),
  shard_id integer not null default 0,
  layout_name varchar(40) not null default 'sheaf',
  epoch_ms bigint not null default 1704067200000,
  time_bits integer not null default 41,
  shard_bits integer not null default 12,
  sequence_bits integer not null default 10,
  test_clock boolean not null default false,
  probe_k bigint not null default 0,
  configured_at datetime(3) not null default current_timestamp(3),
  database_id char(36) not null,
  database_name varchar(255) not null,
  registry varchar(255) null
) engine = innodb;
-- sheaf:break

-- The generator's state is this table's AUTO_INCREMENT counter, not its rows: each value `k` is a
-- chunk of ids (tick << chunk bits | chunk). Rows are deleted as soon as they are inserted; `s`
-- keeps explicit "move forward" rows apart (uuid_short()).
create table {state}.sheaf_chunks (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

-- Flickr-style ticket counters: a name's tickets are (k - 1 + counter_shift) * step + ticket_offset
-- for the values k of `sheaf_ticket_counter`, shared by all names of this server. `first_ticket`:
-- the first ticket of a name adopted from another generator (sheaf_adopt_ticket).
create table {state}.sheaf_tickets (
  name varchar(64) not null primary key,
  step integer not null,
  ticket_offset integer not null,
  created_at datetime(3) not null default current_timestamp(3),
  counter_shift bigint not null default 0,
  first_ticket bigint null
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_ticket_counter (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

-- Leaf-segment ranges: sheaf_alloc_segment moves max_id by the step and returns the range. A class
-- (delta, remainder) holds the ids of one of `delta` databases sharing a tag.
create table {state}.sheaf_segments (
  biz_tag varchar(128) not null primary key,
  max_id bigint not null default 0 check (max_id >= 0),
  step integer not null default 1000 check (step > 0),
  description varchar(256) null,
  updated_at datetime(3) not null default current_timestamp(3),
  delta integer not null default 1,
  remainder integer not null default 0,
  constraint sheaf_segments_class check (delta >= 1 and remainder >= 0 and remainder < delta)
) engine = innodb;
-- sheaf:break

-- Worker-id leases for in-process snowflake generators, and the id space's claims of databases
-- (kind 'database', database_id set). A row stays after release: last_timestamp_ms tells the next
-- holder where the previous one got to; a fresh lease_token per lease fences off a holder taken over.
create table {state}.sheaf_workers (
  worker_id integer not null primary key check (worker_id >= 0),
  holder varchar(255) null,
  lease_token char(36) null,
  expires_ms bigint null,
  last_timestamp_ms bigint not null default 0 check (last_timestamp_ms >= 0),
  heartbeat_ms bigint null,
  created_at datetime(3) not null default current_timestamp(3),
  kind varchar(16) not null default 'worker',
  database_id char(36) null,
  constraint sheaf_workers_kind
    check (kind in ('worker', 'database') and (kind = 'database') = (database_id is not null))
) engine = innodb;
-- sheaf:break

-- Shards this database issues ids for besides its configured one (sheaf_next_shard_id(s)).
create table {state}.sheaf_logical_shards (
  shard_id integer not null primary key check (shard_id >= 0),
  added_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

-- The Galera nodes bound to a shard of their own (sheaf_bind_node), each with a counter slot.
create table {state}.sheaf_nodes (
  node varchar(64) not null primary key,
  shard_id integer not null,
  slot integer not null check (slot between 0 and 7),
  bound_at datetime(3) not null default current_timestamp(3),
  unique key sheaf_nodes_shard (shard_id),
  unique key sheaf_nodes_slot (slot)
) engine = innodb;
-- sheaf:break

-- A bound Galera node's own chunk counter (slot 0 to 7), as sheaf_chunks.
create table {state}.sheaf_node_chunks_0 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_1 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_2 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_3 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_4 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_5 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_6 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_chunks_7 (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

-- A bound Galera node's own ticket counter (slot 0 to 7), as sheaf_ticket_counter.
create table {state}.sheaf_node_tickets_0 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_1 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_2 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_3 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_4 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_5 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_6 (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

create table {state}.sheaf_node_tickets_7 (
  k bigint not null auto_increment primary key
) engine = innodb;
