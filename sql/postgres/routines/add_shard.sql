-- Lets next_id(shard) and next_ids(n, shard) issue ids of `shard_id` on this database, once the
-- shard is claimed in the id space (SH016 when another holder has it). Keep every shard on one
-- database only: two databases issuing one shard issue the same ids.
create or replace function sheaf.add_shard(shard_id integer) returns void
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  if shard_id is null or shard_id < 0 or shard_id >= (1::bigint << s.shard_bits) then
    perform sheaf._fail('SH001', format('shard %s does not fit %s shard bits (max %s)',
      coalesce(shard_id::text, 'null'), s.shard_bits, (1::bigint << s.shard_bits) - 1));
  end if;
  -- Serialised with configure() and install: each re-creates the functions.
  perform pg_advisory_xact_lock(8316008180944039539);
  perform sheaf._claim_own_shard(add_shard.shard_id);
  insert into sheaf.logical_shards (shard_id) values (add_shard.shard_id) on conflict do nothing;
  perform sheaf._bake();
end
$$;
