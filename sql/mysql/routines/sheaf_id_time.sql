-- When an id was made, as DATETIME(3) in UTC (DATETIME reaches 9999; TIMESTAMP would stop in 2038).
create definer = current_user function {state}.sheaf_id_time(p_id bigint) returns datetime(3)
  not deterministic reads sql data
  return (select timestampadd(microsecond, ((sheaf__check_id(p_id) >> (shard_bits + sequence_bits)) + epoch_ms) * 1000,
    timestamp '1970-01-01 00:00:00') from sheaf_settings where singleton = 1);
