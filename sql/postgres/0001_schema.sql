-- sheaf 0001: the schema, its settings row and the generator state.
-- Needs: PostgreSQL 13+ (or PGlite); no superuser, no extension.
-- Statements are separated by `-- sheaf:break` so drivers that take one statement at a time can run it.

create schema if not exists sheaf;
-- sheaf:break

-- One row: the shard this database issues ids for and the layout baked into the functions.
create table sheaf.settings (
  singleton boolean primary key default true check (singleton),
  shard_id integer not null default 0,
  layout_name text not null default 'sheaf',
  epoch_ms bigint not null default 1704067200000,
  time_bits integer not null default 41,
  shard_bits integer not null default 12,
  sequence_bits integer not null default 10,
  test_clock boolean not null default false,
  configured_at timestamptz not null default now()
);
-- sheaf:break

insert into sheaf.settings default values;
-- sheaf:break

-- The generator's state lives in two sequences because sequences change outside transactions:
-- taking a value never waits for another session's commit, and a rollback never hands it out again.
-- `counter` holds finished ids of the configured shard; `block` holds the last id of the block (one
-- millisecond's ids) opened most recently, -1 before the first. See docs/sql/postgres.md.
create sequence sheaf.counter as bigint minvalue 0 start 0 cache 1;
-- sheaf:break

create sequence sheaf.block as bigint minvalue -1 start -1 cache 1;
-- sheaf:break

-- Called, so that pg_sequence_last_value() reads -1 (no block opened) rather than NULL.
select setval('sheaf.block', -1);
