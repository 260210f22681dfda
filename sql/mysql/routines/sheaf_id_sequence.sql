-- The sequence field of an id.
create definer = current_user function {state}.sheaf_id_sequence(p_id bigint) returns integer
  not deterministic reads sql data
  return (select sheaf__check_id(p_id) & ((1 << sequence_bits) - 1) from sheaf_settings where singleton = 1);
