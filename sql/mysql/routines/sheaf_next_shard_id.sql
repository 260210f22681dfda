-- A snowflake for a logical shard of this database: the counter is shared by all its shards, so
-- replacing the shard field of sheaf_next_id() keeps ids unique.
create definer = current_user function {state}.sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  call sheaf__check_owned_shard(p_shard);
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  return (sheaf_next_id() & ~(((1 << v_shard_bits) - 1) << v_seq_bits)) | (p_shard << v_seq_bits);
end;
