-- Refuses a shard (NULL too) that does not fit the layout's shard bits.
create definer = current_user procedure {state}.sheaf__check_shard(in p_shard integer, in p_shard_bits integer)
  no sql
begin
  if p_shard is null or p_shard < 0 or p_shard > (1 << p_shard_bits) - 1 then
    call sheaf__fail(30001, concat('sheaf: shard ', coalesce(p_shard, 'null'), ' does not fit ', p_shard_bits,
      ' shard bits (max ', (1 << p_shard_bits) - 1, ')'));
  end if;
end;
