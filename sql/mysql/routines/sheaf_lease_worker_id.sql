-- Leases exactly worker id `p_worker_id`, returning the row sheaf_lease_worker returns, or says who
-- holds it (30016): the database whose shard it is, or the holder of a live lease.
create definer = current_user procedure {state}.sheaf_lease_worker_id(in p_holder varchar(255), in p_lease_ms integer, in p_worker_id integer)
  not deterministic modifies sql data
begin
  declare v_bits integer;
  declare v_token, v_db char(36);
  declare v_kind varchar(16);
  declare v_holder varchar(255);
  declare v_expires bigint;
  call sheaf__check_lease_args(p_holder, p_lease_ms);
  select shard_bits into v_bits from sheaf_settings where singleton = 1;
  if p_worker_id is null or p_worker_id < 0 or p_worker_id > (1 << v_bits) - 1 then
    call sheaf__fail(30001, concat('sheaf: worker id ', coalesce(p_worker_id, 'null'), ' does not fit ', v_bits,
      ' shard bits (max ', (1 << v_bits) - 1, ')'));
  end if;
  call sheaf__take_worker(p_worker_id, p_holder, p_lease_ms, v_token);
  if v_token is not null then
    select worker_id, lease_token, last_timestamp_ms from sheaf_workers
      where worker_id = p_worker_id and lease_token = v_token;
  else
    select kind, database_id, holder, expires_ms into v_kind, v_db, v_holder, v_expires
      from sheaf_workers where worker_id = p_worker_id;
    if v_kind = 'database' then
      call sheaf__fail(30016, left(concat('sheaf: worker id ', p_worker_id, ' is the shard of database ',
        quote(v_holder), ' (', v_db, ')'), 128));
    end if;
    call sheaf__fail(30016, left(concat('sheaf: worker id ', p_worker_id, ' is leased by ', quote(v_holder), ' until ',
      coalesce(sheaf__iso(v_expires), 'now')), 128));
  end if;
end;
