-- Records that database `p_database_id`, described by `p_holder`, issues the ids of `p_shard`;
-- returns the last millisecond an earlier holder of the value recorded, which the caller's clock
-- must have passed (0 for a value never taken). Idempotent for the same database. `p_pending`: the
-- claim of an install not yet done, which a rerun of that install (same holder text) may take over,
-- and which stays taken until the install confirms it (the same call with p_pending false) or an
-- admin releases it. Refused (30016, naming the holder) while another database holds the value, a
-- worker lease on it is live, or a worker issued its ids up to a later time. A function, so that it
-- is one statement: in autocommit, one transaction, whether called alone, from sheaf_configure or
-- by the installer of another database.
create definer = current_user function {state}.sheaf_claim_shard(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
  returns bigint
  not deterministic modifies sql data sql security invoker
begin
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  return sheaf__claim(p_shard, p_database_id, p_holder, p_pending);
end;
