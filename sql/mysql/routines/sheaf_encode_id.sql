-- The id of a time, shard and sequence (the inverse of sheaf_decode_id).
create definer = current_user function {state}.sheaf_encode_id(p_at datetime(3), p_shard integer, p_sequence integer) returns bigint
  not deterministic reads sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_shard_bits);
  if p_sequence is null or p_sequence < 0 or p_sequence > (1 << v_seq_bits) - 1 then
    call sheaf__fail(30020, concat('sheaf: sequence ', coalesce(p_sequence, 'null'), ' does not fit ', v_seq_bits,
      ' sequence bits (max ', (1 << v_seq_bits) - 1, ')'));
  end if;
  return (sheaf__tick(p_at) << (v_shard_bits + v_seq_bits)) | (p_shard << v_seq_bits) | p_sequence;
end;
