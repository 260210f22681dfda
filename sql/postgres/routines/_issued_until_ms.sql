-- The last millisecond the generator issued an id at (0 before the first, and for a block never
-- called: a schema copied without its sequences' values): every id so far, of any shard this
-- database had, lies at or below it.
create or replace function sheaf._issued_until_ms() returns bigint
language sql stable as $$
  select case when coalesce(pg_sequence_last_value('sheaf.block'), -1) < 0 then 0
    else (pg_sequence_last_value('sheaf.block') >> (s.shard_bits + s.sequence_bits)) + s.epoch_ms end
  from sheaf.settings s
$$;
