-- Refuses ids outside the layout: negative, or above its largest id.
create definer = current_user function {state}.sheaf__check_id(p_id bigint) returns bigint
  not deterministic reads sql data
begin
  declare v_max bigint;
  declare v_name varchar(40);
  select (sheaf__max_tick(time_bits, shard_bits + sequence_bits) << (shard_bits + sequence_bits))
      | ((1 << (shard_bits + sequence_bits)) - 1), layout_name
    into v_max, v_name from sheaf_settings where singleton = 1;
  if p_id < 0 or p_id > v_max then
    call sheaf__fail(30009, concat('sheaf: id ', p_id, ' is outside layout ', v_name, ' (0 to ', v_max, ')'));
  end if;
  return p_id;
end;
