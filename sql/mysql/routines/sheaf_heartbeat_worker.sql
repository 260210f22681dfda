-- Extends a lease and records how far the holder's clock got (the greater of it and the stored
-- value); returns the new expiry (unix ms). LEASE_LOST when the lease was taken over, released or
-- has expired: the holder must stop issuing ids.
create definer = current_user function {state}.sheaf_heartbeat_worker(p_worker_id integer, p_token char(36), p_last_ms bigint, p_lease_ms integer)
  returns bigint
  not deterministic modifies sql data
begin
  declare v_holder varchar(255);
  declare v_token char(36);
  declare v_expires bigint;
  declare continue handler for not found set v_token = null;
  if p_worker_id is null or p_token is null then
    call sheaf__fail(30002, concat('sheaf: heartbeat needs a worker_id and a lease_token, not ',
      coalesce(p_worker_id, 'null'), ' and ', coalesce(p_token, 'null')));
  end if;
  if p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': last_timestamp_ms must be 0 or more, not ',
      coalesce(p_last_ms, 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': lease_ms must be at least 1, not ',
      coalesce(p_lease_ms, 'null')));
  end if;
  update sheaf_workers
    set expires_ms = sheaf__now_ms() + p_lease_ms, heartbeat_ms = sheaf__now_ms(),
      last_timestamp_ms = greatest(last_timestamp_ms, p_last_ms)
    where worker_id = p_worker_id and lease_token = p_token and expires_ms >= sheaf__now_ms();
  if row_count() = 1 then
    return (select expires_ms from sheaf_workers where worker_id = p_worker_id);
  end if;
  select holder, lease_token, expires_ms into v_holder, v_token, v_expires
    from sheaf_workers where worker_id = p_worker_id;
  if v_token <=> p_token then
    call sheaf__fail(30013, concat('sheaf: worker ', p_worker_id, ': lease ', p_token, ' expired at ',
      sheaf__iso(v_expires)));
  end if;
  call sheaf__fail(30013, concat('sheaf: worker ', p_worker_id, ': lease ', p_token, ' was lost; the worker id is now ',
    coalesce(concat('leased by ', quote(v_holder)), 'free')));
  return null;
end;
