-- All three fields as JSON: {"created_at": "2024-…Z", "shard_id": 7, "sequence": 12}.
create definer = current_user function {state}.sheaf_decode_id(p_id bigint) returns varchar(100)
  not deterministic reads sql data
  return json_object('created_at', concat(replace(cast(sheaf_id_time(p_id) as char), ' ', 'T'), 'Z'),
    'shard_id', 0 + sheaf_id_shard(p_id), 'sequence', 0 + sheaf_id_sequence(p_id));
