-- Frees a worker id and records the holder's final last_timestamp_ms. Returns false, changing
-- nothing, when the token no longer holds the id: releasing a lost lease is harmless.
create definer = current_user function {state}.sheaf_release_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data
begin
  if p_worker_id is null or p_token is null then
    call sheaf__fail(30002, concat('sheaf: release needs a worker_id and a lease_token, not ',
      coalesce(p_worker_id, 'null'), ' and ', coalesce(p_token, 'null')));
  end if;
  if p_last_ms < 0 then
    call sheaf__fail(30002, concat('sheaf: worker ', p_worker_id, ': last_timestamp_ms must be 0 or more, not ',
      p_last_ms));
  end if;
  update sheaf_workers
    set holder = null, lease_token = null, expires_ms = null,
      last_timestamp_ms = greatest(last_timestamp_ms, coalesce(p_last_ms, 0))
    where worker_id = p_worker_id and lease_token = p_token;
  return row_count() = 1;
end;
