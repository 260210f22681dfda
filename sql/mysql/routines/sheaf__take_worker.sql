-- Takes worker id `p_id` when it has no row, or a worker row whose lease is free or expired, and
-- sets `p_token` to the new lease's token; NULL when another holder has it. The insert (of a new
-- id) or the update (re-checked on the current row under its lock) is the arbiter; in autocommit
-- each commits on its own, so no lock outlives it. Runs as its definer for the two lease routines.
create definer = current_user procedure {state}.sheaf__take_worker(in p_id integer, in p_holder varchar(255), in p_lease_ms integer,
  out p_token char(36))
  not deterministic modifies sql data
begin
  declare v_token char(36) default uuid();
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  insert into sheaf_workers (worker_id, holder, lease_token, expires_ms, heartbeat_ms)
    values (p_id, p_holder, v_token, sheaf__now_ms() + p_lease_ms, sheaf__now_ms());
  if v_taken then
    update sheaf_workers
      set holder = p_holder, lease_token = v_token, expires_ms = sheaf__now_ms() + p_lease_ms,
        heartbeat_ms = sheaf__now_ms()
      where worker_id = p_id and kind = 'worker' and (expires_ms is null or expires_ms < sheaf__now_ms());
    if row_count() <> 1 then
      set v_token = null;
    end if;
  end if;
  set p_token = v_token;
end;
