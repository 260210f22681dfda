-- The largest id possible at a time.
create definer = current_user function {state}.sheaf_id_ceiling(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return (sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1))
    | (select (1 << (shard_bits + sequence_bits)) - 1 from sheaf_settings where singleton = 1);
