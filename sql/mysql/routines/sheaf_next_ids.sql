-- n ids of the configured shard: sheaf_next_shard_ids(n, null).
create definer = current_user procedure {state}.sheaf_next_ids(in p_n integer)
  not deterministic modifies sql data
  call sheaf_next_shard_ids(p_n, null);
