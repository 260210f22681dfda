-- The largest tick a layout can encode: its time bits, and the sign bit that stays 0.
create definer = current_user function {state}.sheaf__max_tick(p_time_bits integer, p_low_bits integer) returns bigint
  deterministic no sql
  return least(if(p_time_bits >= 63, 9223372036854775807, (1 << p_time_bits) - 1),
    9223372036854775807 >> p_low_bits);
