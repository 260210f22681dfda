-- The claim itself, without checking the shard against the configured layout (sheaf_configure
-- claims before it changes the layout). On a duplicate key, `insert … on duplicate key update`
-- locks the row exclusively (a plain insert would lock it shared, and a claim and a lease that both
-- held it shared could not both upgrade: a deadlock): the row is this statement's until it commits,
-- and a lease waiting for it re-reads it afterwards. A row this call inserted passes every check.
create definer = current_user function {state}.sheaf__claim(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
  returns bigint
  not deterministic modifies sql data sql security invoker
begin
  declare v_kind varchar(16);
  declare v_db char(36);
  declare v_holder varchar(255);
  declare v_expires, v_last, v_since bigint;
  declare v_now bigint default floor(unix_timestamp(sysdate(3)) * 1000);
  declare v_mark bigint default if(coalesce(p_pending, false), 9223372036854775807, null);
  declare v_want char(36) default lower(p_database_id);
  if p_shard is null or p_shard < 0 or v_want is null or p_holder is null or p_holder = ''
      or not (v_want regexp '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') then
    call sheaf__fail(30002, left(concat('sheaf: claim_shard needs a shard, a uuid database_id and a holder, not ',
      coalesce(p_shard, 'null'), ', ', coalesce(quote(p_database_id), 'null'), ' and ',
      coalesce(quote(p_holder), 'null')), 128));
  end if;
  insert into sheaf_workers (worker_id, kind, database_id, holder, expires_ms, heartbeat_ms)
    values (p_shard, 'database', v_want, p_holder, v_mark, v_now)
    on duplicate key update worker_id = worker_id;
  select kind, database_id, holder, expires_ms, last_timestamp_ms, heartbeat_ms
    into v_kind, v_db, v_holder, v_expires, v_last, v_since
    from sheaf_workers where worker_id = p_shard for update;
  if v_kind = 'database' and v_db <> v_want
      and not (v_expires <=> 9223372036854775807 and cast(v_holder as binary) = cast(p_holder as binary)) then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is held by database ', quote(v_holder),
      ' (', v_db, ')', if(v_expires <=> 9223372036854775807, concat(', pending since ', sheaf__iso(v_since)), '')),
      128));
  end if;
  if v_kind = 'worker' and v_expires >= v_now then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is leased by worker ', quote(v_holder), ' until ',
      sheaf__iso(v_expires), ': stop it or choose another shard'), 128));
  end if;
  if v_kind = 'worker' and v_last >= v_now then
    call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' was issued by a worker up to ',
      sheaf__iso(v_last), ', after this clock (', sheaf__iso(v_now), ')'), 128));
  end if;
  update sheaf_workers
    set kind = 'database', database_id = v_want, holder = p_holder, lease_token = null,
      expires_ms = if(v_kind = 'database' and v_db = v_want and v_expires is null, null, v_mark),
      heartbeat_ms = if(v_kind = 'database', heartbeat_ms, v_now)
    where worker_id = p_shard;
  return v_last;
end;
