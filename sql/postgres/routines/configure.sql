-- Sets the shard (and the layout, until the first id was issued) and re-bakes the functions, with
-- the shard claimed in the id space (SH016 when another holder has it; the whole
-- call is undone), and the old one given back, unless it is also a logical shard, with the last
-- millisecond it was issued at.
create or replace function sheaf.configure(
  shard_id integer,
  layout_name text default 'sheaf',
  epoch_ms bigint default 1704067200000,
  time_bits integer default 41,
  shard_bits integer default 12,
  sequence_bits integer default 10,
  test_clock boolean default false
) returns void
language plpgsql as $$
declare
  existing sheaf.settings;
  layout_changes boolean;
  issued_until bigint;
begin
  -- Two admins configuring or adding shards at once would re-create the same functions at once.
  perform pg_advisory_xact_lock(8316008180944039539);
  existing := (select s from sheaf.settings s);
  layout_changes := (existing.epoch_ms, existing.time_bits, existing.shard_bits, existing.sequence_bits)
    is distinct from (configure.epoch_ms, configure.time_bits, configure.shard_bits, configure.sequence_bits);
  issued_until := sheaf._issued_until_ms();
  if layout_name is null or layout_name !~ '^[a-z0-9_-]{1,40}$' then
    perform sheaf._fail('SH008', format('layout name "%s" must be 1 to 40 of a-z, 0-9, _ and -',
      coalesce(layout_name, 'null')));
  end if;
  if time_bits is null or shard_bits is null or sequence_bits is null or epoch_ms is null
    or time_bits < 1 or sequence_bits < 1 or shard_bits < 0 or time_bits + shard_bits + sequence_bits > 64
    or epoch_ms < 0 then
    perform sheaf._fail('SH008', format('layout %s is invalid: epoch %s, %s time + %s shard + %s sequence bits '
      '(time and sequence need at least 1 bit, 64 bits at most)', layout_name, epoch_ms, time_bits, shard_bits,
      sequence_bits));
  end if;
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), shard_bits, (1::bigint << shard_bits) - 1));
  end if;
  if layout_changes and pg_sequence_last_value('sheaf.block') >= 0 then
    perform sheaf._fail('SH005', format('cannot change layout %s to %s: ids were already issued with it',
      existing.layout_name, layout_name));
  end if;
  update sheaf.settings set
    shard_id = configure.shard_id, layout_name = configure.layout_name, epoch_ms = configure.epoch_ms,
    time_bits = configure.time_bits, shard_bits = configure.shard_bits, sequence_bits = configure.sequence_bits,
    test_clock = configure.test_clock, configured_at = now();
  perform sheaf._claim_own_shard(configure.shard_id);
  if existing.shard_id <> configure.shard_id
    and not exists (select from sheaf.logical_shards l where l.shard_id = existing.shard_id) then
    perform sheaf.release_shard(existing.shard_id, existing.database_id, issued_until);
  end if;
  perform sheaf._bake();
  -- The counter holds finished ids of the configured shard: move it to a block of the new shard.
  if existing.shard_id <> configure.shard_id and pg_sequence_last_value('sheaf.block') >= 0 then
    perform sheaf._open_block(0);
  end if;
end
$$;
