-- The shard field of an id.
create definer = current_user function {state}.sheaf_id_shard(p_id bigint) returns integer
  not deterministic reads sql data
  return (select (sheaf__check_id(p_id) >> sequence_bits) & ((1 << shard_bits) - 1) from sheaf_settings
    where singleton = 1);
