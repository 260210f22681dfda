-- The forwards of the application's database: what applications call, each a one-line routine
-- named like the routine of sheaf's database ({state}) it calls, with its parameters, and running as
-- sheaf's owner like that routine. An account with EXECUTE on `app.*` reaches sheaf's state through
-- them only. What only admins call has no forward: they call {state}.sheaf_configure and the like.
-- The installer re-creates a forward that was replaced or dropped (install/mysql-forwards.ts).

create definer = current_user function {app}.sheaf_next_id() returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_id();
-- sheaf:break

create definer = current_user function {app}.sheaf_next_shard_id(p_shard integer) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_shard_id(p_shard);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_next_ids(in p_n integer)
  not deterministic modifies sql data
  call {state}.sheaf_next_ids(p_n);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_next_shard_ids(in p_n integer, in p_shard integer)
  not deterministic modifies sql data
  call {state}.sheaf_next_shard_ids(p_n, p_shard);
-- sheaf:break

create definer = current_user function {app}.sheaf_decode_id(p_id bigint) returns varchar(100)
  not deterministic reads sql data
  return {state}.sheaf_decode_id(p_id);
-- sheaf:break

create definer = current_user function {app}.sheaf_id_time(p_id bigint) returns datetime(3)
  not deterministic reads sql data
  return {state}.sheaf_id_time(p_id);
-- sheaf:break

create definer = current_user function {app}.sheaf_id_shard(p_id bigint) returns integer
  not deterministic reads sql data
  return {state}.sheaf_id_shard(p_id);
-- sheaf:break

create definer = current_user function {app}.sheaf_id_sequence(p_id bigint) returns integer
  not deterministic reads sql data
  return {state}.sheaf_id_sequence(p_id);
-- sheaf:break

create definer = current_user function {app}.sheaf_id_floor(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_id_floor(p_at);
-- sheaf:break

create definer = current_user function {app}.sheaf_id_ceiling(p_at datetime(3)) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_id_ceiling(p_at);
-- sheaf:break

create definer = current_user function {app}.sheaf_encode_id(p_at datetime(3), p_shard integer, p_sequence integer) returns bigint
  not deterministic reads sql data
  return {state}.sheaf_encode_id(p_at, p_shard, p_sequence);
-- sheaf:break

create definer = current_user function {app}.sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_next_ticket(p_name);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
  call {state}.sheaf_ticket_series(p_name);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
  not deterministic modifies sql data
  call {state}.sheaf_alloc_segment(p_biz_tag, p_step);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_segment_class(in p_biz_tag varchar(128))
  not deterministic reads sql data
  call {state}.sheaf_segment_class(p_biz_tag);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_alloc_segment_class(in p_biz_tag varchar(128), in p_step integer, in p_delta integer, in p_remainder integer)
  not deterministic modifies sql data
  call {state}.sheaf_alloc_segment_class(p_biz_tag, p_step, p_delta, p_remainder);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer, in p_max_worker integer)
  not deterministic modifies sql data
  call {state}.sheaf_lease_worker(p_holder, p_lease_ms, p_max_worker);
-- sheaf:break

create definer = current_user procedure {app}.sheaf_lease_worker_id(in p_holder varchar(255), in p_lease_ms integer, in p_worker_id integer)
  not deterministic modifies sql data
  call {state}.sheaf_lease_worker_id(p_holder, p_lease_ms, p_worker_id);
-- sheaf:break

create definer = current_user function {app}.sheaf_heartbeat_worker(p_worker_id integer, p_token char(36), p_last_ms bigint, p_lease_ms integer) returns bigint
  not deterministic modifies sql data
  return {state}.sheaf_heartbeat_worker(p_worker_id, p_token, p_last_ms, p_lease_ms);
-- sheaf:break

create definer = current_user function {app}.sheaf_release_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
  return {state}.sheaf_release_worker(p_worker_id, p_token, p_last_ms);
-- sheaf:break

create definer = current_user function {app}.sheaf_close_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
  return {state}.sheaf_close_worker(p_worker_id, p_token, p_last_ms);
