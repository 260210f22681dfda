-- Claims a value for this database. A database registered elsewhere takes a shard only when its
-- installer registered it there first and says so in the session (@sheaf_registered_shard = N).
-- Reads no sheaf_workers row before the claim locks it: called from a statement that is not a plain
-- SELECT, InnoDB reads with shared locks, and a shared lock upgraded to the claim's exclusive one
-- deadlocks with a lease waiting for the row.
create definer = current_user function {state}.sheaf__claim_own_shard(p_shard integer, p_pending boolean) returns bigint
  not deterministic modifies sql data sql security invoker
begin
  declare v_db char(36);
  declare v_name, v_registry varchar(255);
  select database_id, database_name, registry into v_db, v_name, v_registry from sheaf_settings where singleton = 1;
  if v_registry is not null and not (cast(@sheaf_registered_shard as char) <=> cast(p_shard as char)) then
    call sheaf__fail(30017, left(concat('sheaf: register shard ', p_shard,
      ' in the registry of this database''s shards first (install with it): ', v_registry), 128));
  end if;
  return sheaf__claim(p_shard, v_db, v_name, p_pending);
end;
