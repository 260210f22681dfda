-- The current shape of sheaf's tables and sequences on PostgreSQL 15+ (and PGlite), as a fresh
-- install leaves them: what a reader opens to see the state, and what test/sql/current-definitions
-- checks the numbered files against. Changing a table takes a new numbered file (alter table …) and
-- the same change here. The routines are under routines/.
-- Statements are separated by `-- sheaf:break`, as in the numbered files.

create schema if not exists sheaf;
-- sheaf:break

-- The installed numbered files; the installer creates it (packages/core/src/install/postgres.ts).
create table sheaf.schema_versions (
  version integer primary key,
  name text not null,
  checksum text not null,
  installed_at timestamptz not null default now()
);
-- sheaf:break

-- One row: the shard this database issues ids for, the layout baked into the functions, the node
-- it is bound to and the generator path chosen (null until an install chooses).
create table sheaf.settings (
  singleton boolean primary key default true check (singleton),
  shard_id integer not null default 0,
  layout_name text not null default 'sheaf',
  epoch_ms bigint not null default 1704067200000,
  time_bits integer not null default 41,
  shard_bits integer not null default 12,
  sequence_bits integer not null default 10,
  test_clock boolean not null default false,
  configured_at timestamptz not null default now(),
  database_id uuid not null
    default coalesce(nullif(current_setting('sheaf.database_id', true), '')::uuid, gen_random_uuid()),
  database_name text not null,
  registry text,
  native boolean,
  node_identity text
);
-- sheaf:break

-- The generator's state (docs/sql/postgres.md): `counter` holds finished ids of the configured
-- shard; `block` the last id of the block opened most recently (-1 before the first), durably;
-- `live_block` the same for the fast path, reset by a crash restart or a promotion; `opened_at` the
-- tick the last block was opened at; `step_allowance` how far the clock stepped back under ids
-- already ahead of it; `node_mark` the counter's file the node was last confirmed for.
create sequence sheaf.counter as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

create sequence sheaf.block as bigint minvalue -1 start -1 cache 1;
-- sheaf:break

create unlogged sequence sheaf.live_block as bigint minvalue -1 start -1 cache 1;
-- sheaf:break

create sequence sheaf.opened_at as bigint minvalue -9223372036854775808 cache 1;
-- sheaf:break

create sequence sheaf.step_allowance as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

create sequence sheaf.node_mark as bigint minvalue -9223372036854775808 cache 1;
-- sheaf:break

-- The slow path's lock key is derived from this secret, which only the owner can read.
-- `legacy_until`: until then, an opener also takes the fixed key of versions 1-7.
create table sheaf.lock_secret (
  singleton boolean primary key default true check (singleton),
  secret bytea not null check (length(secret) >= 16),
  legacy_until timestamptz not null
);
-- sheaf:break

-- Moves each time the block lock is released by a session that held it for the current epoch.
create sequence sheaf.lock_epoch as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

-- Shards this database issues ids for besides its configured one (next_id(shard), next_ids(n, shard)).
create table sheaf.logical_shards (
  shard_id integer primary key check (shard_id >= 0),
  added_at timestamptz not null default now()
);
-- sheaf:break

-- Names the sequences of tickets (sheaf.ticket_<n>).
create sequence sheaf.ticket_numbers as bigint minvalue 1 start 1;
-- sheaf:break

create table sheaf.tickets (
  name text primary key check (name <> ''),
  step integer not null check (step >= 1),
  "offset" integer not null check ("offset" between 1 and step),
  -- An oid, so next_ticket() calls nextval() without resolving a name.
  sequence regclass not null unique,
  created_at timestamptz not null default now()
);
-- sheaf:break

-- Segments; a row of class (delta, remainder) hands out the ids ≡ remainder (mod delta).
create table sheaf.segments (
  biz_tag text primary key check (biz_tag <> ''),
  max_id bigint not null default 0 check (max_id >= 0),
  step integer not null check (step > 0),
  description text,
  updated_at timestamptz not null default now(),
  delta integer not null default 1,
  remainder integer not null default 0,
  constraint segments_class_check check (delta >= 1 and remainder >= 0 and remainder < delta)
);
-- sheaf:break

-- Worker id leases and, with kind 'database', the shards of the id space this database registers.
create table sheaf.workers (
  worker_id integer primary key check (worker_id >= 0),
  holder text,
  lease_token uuid,
  expires_at timestamptz,
  last_timestamp_ms bigint not null default 0 check (last_timestamp_ms >= 0),
  heartbeat_at timestamptz,
  created_at timestamptz not null default now(),
  kind text not null default 'worker' check (kind in ('worker', 'database')),
  database_id uuid,
  constraint workers_database_check check ((kind = 'database') = (database_id is not null))
);
