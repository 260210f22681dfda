-- The smallest id possible at a time: `where id between sheaf_id_floor(a) and sheaf_id_ceiling(b)`.
create definer = current_user function {state}.sheaf_id_floor(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return sheaf__tick(p_at) << (select shard_bits + sequence_bits from sheaf_settings where singleton = 1);
