-- sheaf 0001 (MySQL/MariaDB): settings, generator counter, tickets, segments and worker leases.
-- Needs: MariaDB 10.3+ or MySQL 8.0+, InnoDB. Objects are prefixed `sheaf_` in the current database.
-- Statements are separated by `-- sheaf:break`: drivers run one statement at a time (no DELIMITER).

-- One row: the shard this database issues ids for and its layout. `probe_k` is the counter value
-- `sheaf_configure` took last; a higher counter means ids were issued since.
create table sheaf_settings (
  singleton tinyint not null primary key default 1 check (singleton = 1),
  shard_id integer not null default 0,
  layout_name varchar(40) not null default 'sheaf',
  epoch_ms bigint not null default 1704067200000,
  time_bits integer not null default 41,
  shard_bits integer not null default 12,
  sequence_bits integer not null default 10,
  test_clock boolean not null default false,
  probe_k bigint not null default 0,
  configured_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

insert into sheaf_settings (singleton) values (1);
-- sheaf:break

-- The generator's state is this table's AUTO_INCREMENT counter, not its rows: each value `k` is a
-- chunk of ids (tick << chunk bits | chunk). InnoDB hands out AUTO_INCREMENT values under a mutex
-- that is released at once (not at commit), never hands one out twice (not after a rollback, and
-- not after a crash: the counter is persistent), and an explicit larger value moves it forward:
-- fetch-and-add and fetch-and-max without a lock held to commit. Rows are deleted as soon as they
-- are inserted; `s` keeps explicit "move forward" rows of different sessions apart.
create table sheaf_chunks (
  k bigint not null auto_increment,
  s bigint not null default 0,
  primary key (k, s)
) engine = innodb;
-- sheaf:break

-- Flickr-style ticket counters: a name's tickets are (k - 1) * step + ticket_offset for the values
-- k of `sheaf_ticket_counter`, shared by all names of this server like Flickr's Tickets64 table.
create table sheaf_tickets (
  name varchar(64) not null primary key,
  step integer not null,
  ticket_offset integer not null,
  created_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

create table sheaf_ticket_counter (
  k bigint not null auto_increment primary key
) engine = innodb;
-- sheaf:break

-- Leaf-segment ranges: `sheaf_alloc_segment` moves max_id by the step and returns the range.
create table sheaf_segments (
  biz_tag varchar(128) not null primary key,
  max_id bigint not null default 0 check (max_id >= 0),
  step integer not null default 1000 check (step > 0),
  description varchar(256) null,
  updated_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
-- sheaf:break

-- Worker-id leases for in-process snowflake generators. A row stays after release:
-- last_timestamp_ms tells the next holder where the previous one got to. Times are unix ms read
-- from SYSDATE when each statement touches the row (a heartbeat that waited for a row lock must not
-- renew with the time it was sent); a fresh lease_token per lease fences off a holder taken over.
create table sheaf_workers (
  worker_id integer not null primary key check (worker_id >= 0),
  holder varchar(255) null,
  lease_token char(36) null,
  expires_ms bigint null,
  last_timestamp_ms bigint not null default 0 check (last_timestamp_ms >= 0),
  heartbeat_ms bigint null,
  created_at datetime(3) not null default current_timestamp(3)
) engine = innodb;
