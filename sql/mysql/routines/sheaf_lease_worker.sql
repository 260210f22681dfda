-- Leases the lowest worker id in [0, p_max_worker] that no database holds and whose lease is free
-- or expired: one row (worker_id, lease_token, last_timestamp_ms). The insert (of a new id) or the
-- update (re-checked under its row lock) is the arbiter: of two callers after one id, the second
-- finds it taken and tries the next candidate; each retry means another caller got a lease or a
-- database claimed the value.
create definer = current_user procedure {state}.sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer,
  in p_max_worker integer)
  not deterministic modifies sql data
begin
  declare v_id integer;
  declare v_token char(36);
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  if p_max_worker is null or p_max_worker < 0 then
    call sheaf__fail(30002, concat('sheaf: max_worker must be 0 or more, not ', coalesce(p_max_worker, 'null')));
  end if;
  lease: loop
    select min(c.id) into v_id from (
      select 0 as id from dual where not exists (select 1 from sheaf_workers w where w.worker_id = 0)
      union all
      select w.worker_id + 1 from sheaf_workers w
        where w.worker_id < p_max_worker
          and not exists (select 1 from sheaf_workers x where x.worker_id = w.worker_id + 1)
      union all
      select w.worker_id from sheaf_workers w
        where w.kind = 'worker' and w.worker_id <= p_max_worker
          and (w.expires_ms is null or w.expires_ms < sheaf__now_ms())
    ) c;
    if v_id is null then
      call sheaf__fail(30012, left(concat('sheaf: all ', p_max_worker + 1, ' worker ids from 0 to ', p_max_worker,
        ' are leased or held by databases; holder ', quote(p_holder), ' got none'), 128));
    end if;
    call sheaf__take_worker(v_id, p_holder, p_lease_ms, v_token);
    if v_token is not null then
      select worker_id, lease_token, last_timestamp_ms from sheaf_workers
        where worker_id = v_id and lease_token = v_token;
      leave lease;
    end if;
  end loop;
end;
