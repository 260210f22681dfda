-- sheaf 0006 (MySQL/MariaDB): one id space, as PostgreSQL's 0009. The shard field of an id is one
-- namespace shared by database installs (their configured and logical shards) and the worker ids of
-- in-process generators, so each value has one row in sheaf_workers, whose primary key decides
-- between concurrent takers:
-- - kind 'worker': a worker-id lease, as before;
-- - kind 'database': the shard of the database `database_id` (this one, or another that registered
--   its shards here); `expires_ms` is 9223372036854775807 (the largest bigint) while the install
--   that claimed it is unconfirmed (pending), NULL once confirmed.
-- sheaf_configure and sheaf_add_shard claim their shard here (30016 SHARD_TAKEN, naming the holder)
-- and a shard change gives the old value back with the last millisecond its ids can carry;
-- sheaf_lease_worker skips database values, and sheaf_lease_worker_id leases one named value or says
-- who holds it. A database whose shards are registered in another database (sheaf_settings.registry)
-- leases no worker ids: they are leased from the registry (30017 REGISTRY_ELSEWHERE).
-- Applied again after failing half-way (install() drops what the file creates with `create
-- function|procedure`, then runs it): the columns are added only when missing; the routines this
-- file replaces are created with `create definer = current_user …` after their own `drop`, so a
-- refused upgrade leaves the 0005 ones in place; and this database's values are claimed pending
-- before any routine is replaced, so no 0005 routine ever sees a confirmed claim, whose NULL expiry
-- it would take for a free worker id.
-- Needs: 0001-0005. MariaDB 10.3+ or MySQL 8.0 (CHECK constraints enforced from 8.0.16).

-- Refuses the upgrade before it changes anything when a worker holds a value this database issues
-- (a live lease, or ids issued up to a time ahead of this clock); then adds the columns that are
-- missing. Worker rows are told from claims by the 0005 columns alone: a claim has a holder and
-- never a lease token. `@sheaf_database_id`, when set, names this database (an installer that
-- registered it elsewhere first); otherwise uuid().
create procedure sheaf__id_space_0006()
  not deterministic modifies sql data
begin
  declare v_id integer;
  declare v_holder varchar(255);
  declare v_token char(36);
  declare v_expires, v_last bigint;
  declare v_now bigint default floor(unix_timestamp(sysdate(3)) * 1000);
  declare v_given varchar(255) default nullif(cast(@sheaf_database_id as char), '');
  declare continue handler for not found set v_id = null;
  select w.worker_id, w.holder, w.lease_token, w.expires_ms, w.last_timestamp_ms
    into v_id, v_holder, v_token, v_expires, v_last
    from sheaf_workers w
    where (w.worker_id = (select s.shard_id from sheaf_settings s where s.singleton = 1)
        or w.worker_id in (select l.shard_id from sheaf_logical_shards l))
      and (w.lease_token is not null or w.holder is null)
      and ((w.lease_token is not null and w.expires_ms >= v_now) or w.last_timestamp_ms >= v_now)
    order by w.worker_id limit 1;
  if v_id is not null and v_token is not null and v_expires >= v_now then
    call sheaf__fail(30016, left(concat('sheaf: shard ', v_id, ' is leased by worker ', quote(v_holder), ' until ',
      sheaf__iso(v_expires), ': stop it or choose another shard'), 128));
  elseif v_id is not null then
    call sheaf__fail(30016, left(concat('sheaf: shard ', v_id, ' was issued by a worker up to ', sheaf__iso(v_last),
      ', after this clock (', sheaf__iso(v_now), ')'), 128));
  end if;
  if v_given is not null
      and not (lower(v_given) regexp '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') then
    call sheaf__fail(30002, left(concat('sheaf: @sheaf_database_id must be a uuid, not ', quote(v_given)), 128));
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_workers' and column_name = 'kind') then
    alter table sheaf_workers add column kind varchar(16) not null default 'worker';
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_workers' and column_name = 'database_id') then
    alter table sheaf_workers add column database_id char(36) null;
  end if;
  if not exists (select 1 from information_schema.table_constraints where constraint_schema = database()
      and table_name = 'sheaf_workers' and constraint_name = 'sheaf_workers_kind') then
    alter table sheaf_workers add constraint sheaf_workers_kind
      check (kind in ('worker', 'database') and (kind = 'database') = (database_id is not null));
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_settings' and column_name = 'database_id') then
    alter table sheaf_settings add column database_id char(36) null;
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_settings' and column_name = 'database_name') then
    alter table sheaf_settings add column database_name varchar(255) null;
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_settings' and column_name = 'registry') then
    alter table sheaf_settings add column registry varchar(255) null;
  end if;
  update sheaf_settings set database_id = lower(coalesce(v_given, uuid()))
    where singleton = 1 and database_id is null;
  update sheaf_settings set database_name = concat(database(), ' on ', @@hostname, ':', @@port)
    where singleton = 1 and database_name is null;
  if exists (select 1 from information_schema.columns where table_schema = database() and table_name = 'sheaf_settings'
      and column_name in ('database_id', 'database_name') and is_nullable = 'YES') then
    alter table sheaf_settings modify database_id char(36) not null, modify database_name varchar(255) not null;
  end if;
end;
-- sheaf:break

call sheaf__id_space_0006();
-- sheaf:break

drop procedure sheaf__id_space_0006;
-- sheaf:break

-- The claim itself, without checking the shard against the configured layout (sheaf_configure
-- claims before it changes the layout). On a duplicate key, `insert … on duplicate key update`
-- locks the row exclusively (a plain insert would lock it shared, and a claim and a lease that both
-- held it shared could not both upgrade: a deadlock): the row is this statement's until it commits,
-- and a lease waiting for it re-reads it afterwards. A row this call inserted passes every check.
create function sheaf__claim(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
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
-- sheaf:break

-- Records that database `p_database_id`, described by `p_holder`, issues the ids of `p_shard`;
-- returns the last millisecond an earlier holder of the value recorded, which the caller's clock
-- must have passed (0 for a value never taken). Idempotent for the same database. `p_pending`: the
-- claim of an install not yet done, which a rerun of that install (same holder text) may take over,
-- and which stays taken until the install confirms it (the same call with p_pending false) or an
-- admin releases it. Refused (30016, naming the holder) while another database holds the value, a
-- worker lease on it is live, or a worker issued its ids up to a later time. A function, so that it
-- is one statement: in autocommit, one transaction, whether called alone, from sheaf_configure or
-- by the installer of another database.
create function sheaf_claim_shard(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean)
  returns bigint
  not deterministic modifies sql data sql security invoker
begin
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  return sheaf__claim(p_shard, p_database_id, p_holder, p_pending);
end;
-- sheaf:break

-- Gives a database's shard back to the id space, recording `p_last_ms`, the last millisecond its ids
-- were issued at: a worker that leases the value later starts above it. False, changing nothing,
-- when `p_database_id` does not hold the value.
create function sheaf_release_shard(p_shard integer, p_database_id char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data sql security invoker
begin
  if p_shard is null or p_database_id is null or p_last_ms is null or p_last_ms < 0 then
    call sheaf__fail(30002, left(concat('sheaf: release_shard needs a shard, a database_id and a last_ms of 0 or ',
      'more, not ', coalesce(p_shard, 'null'), ', ', coalesce(p_database_id, 'null'), ', ', coalesce(p_last_ms, 'null')),
      128));
  end if;
  update sheaf_workers
    set kind = 'worker', database_id = null, holder = null, lease_token = null, expires_ms = null,
      last_timestamp_ms = greatest(last_timestamp_ms, p_last_ms)
    where worker_id = p_shard and kind = 'database' and database_id = lower(p_database_id);
  return row_count() = 1;
end;
-- sheaf:break

-- Claims a value for this database. A database registered elsewhere takes a shard only when its
-- installer registered it there first and says so in the session (@sheaf_registered_shard = N).
-- Reads no sheaf_workers row before the claim locks it: called from a statement that is not a plain
-- SELECT, InnoDB reads with shared locks, and a shared lock upgraded to the claim's exclusive one
-- deadlocks with a lease waiting for the row.
create function sheaf__claim_own_shard(p_shard integer, p_pending boolean) returns bigint
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
-- sheaf:break

-- Records, from the installer, that this database's shards are registered in `p_registry` (a
-- description of the registry database); NULL makes this database its own registry again.
create procedure sheaf__use_registry(in p_registry varchar(255))
  not deterministic modifies sql data sql security invoker
  update sheaf_settings set registry = p_registry where singleton = 1;
-- sheaf:break

-- Every value this database issues is claimed, pending until the routines below are in place.
select sheaf__claim_own_shard(s.shard_id, true) as last_ms from sheaf_settings s where s.singleton = 1;
-- sheaf:break

select sheaf__claim_own_shard(l.shard_id, true) as last_ms from sheaf_logical_shards l order by l.shard_id;
-- sheaf:break

-- Replaced, not altered: MySQL has no `create or replace procedure`. install() holds the install lock.
drop procedure if exists sheaf_configure;
-- sheaf:break

-- As in 0004, with the shard claimed in the id space first (30016 when another holder has it: then
-- nothing changed; MySQL commits each statement, so the claim must come before the settings), and
-- the old one given back, unless it is also a logical shard, with the last millisecond its ids can
-- carry: the tick of a counter value taken after the settings changed (every chunk claimed before
-- it is below it), or the clock, plus 8 ms for a statement that read the old settings just before
-- the change and claims its chunk just after (a hot session claims up to 7 ms ahead of the clock).
create definer = current_user procedure sheaf_configure(in p_shard integer, in p_layout varchar(40),
  in p_epoch bigint, in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data sql security invoker
begin
  declare v_k, v_probe, v_old_epoch, v_last_ms, v_ahead bigint;
  declare v_layout_changes, v_issued, v_released boolean;
  declare v_old_shard, v_old_seq_bits integer;
  declare v_db char(36);
  if p_layout is null or not (p_layout regexp '^[a-z0-9_-]{1,40}$')
      or cast(p_layout as binary) <> cast(lower(p_layout) as binary) then
    call sheaf__fail(30008, concat('sheaf: layout name ', coalesce(quote(p_layout), 'null'),
      ' must be 1 to 40 of a-z, 0-9, _ and -'));
  end if;
  if p_time_bits is null or p_shard_bits is null or p_seq_bits is null or p_epoch is null or p_time_bits < 1
      or p_seq_bits < 1 or p_shard_bits < 0 or p_time_bits + p_shard_bits + p_seq_bits > 64 or p_epoch < 0 then
    call sheaf__fail(30008, concat('sheaf: layout ', p_layout, ' is invalid: epoch ', coalesce(p_epoch, 'null'), ', ',
      coalesce(p_time_bits, 'null'), '+', coalesce(p_shard_bits, 'null'), '+', coalesce(p_seq_bits, 'null'), ' bits'));
  end if;
  call sheaf__check_shard(p_shard, p_shard_bits);
  select shard_id, epoch_ms, sequence_bits, database_id, probe_k,
      (epoch_ms, time_bits, shard_bits, sequence_bits) <> (p_epoch, p_time_bits, p_shard_bits, p_seq_bits)
    into v_old_shard, v_old_epoch, v_old_seq_bits, v_db, v_probe, v_layout_changes
    from sheaf_settings where singleton = 1;
  if v_layout_changes then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    select v_k > probe_k + 1 into v_issued from sheaf_settings where singleton = 1;
    if v_issued then
      call sheaf__fail(30005, concat('sheaf: cannot change layout ', (select layout_name from sheaf_settings),
        ' to ', p_layout, ': ids were already issued with it'));
    end if;
    set v_probe = v_k;
  end if;
  -- A free value given back a moment ago, whose last millisecond is at most 1 s ahead of the clock
  -- (sheaf_configure records 8 ms to spare), is waited for as a starting generator waits; read in a
  -- statement of its own, which in autocommit commits before the claim locks the row.
  set v_ahead = (select w.last_timestamp_ms + 1 - c.now_ms
    from sheaf_workers w, (select floor(unix_timestamp(sysdate(3)) * 1000) as now_ms) c
    where w.worker_id = p_shard and w.kind = 'worker' and (w.expires_ms is null or w.expires_ms < c.now_ms));
  if v_ahead between 1 and 1000 then
    do sleep(v_ahead / 1000);
  end if;
  set v_last_ms = sheaf__claim_own_shard(p_shard, false);
  update sheaf_settings set shard_id = p_shard, layout_name = p_layout, epoch_ms = p_epoch, time_bits = p_time_bits,
    shard_bits = p_shard_bits, sequence_bits = p_seq_bits, test_clock = coalesce(p_test, false), probe_k = v_probe,
    configured_at = current_timestamp(3)
    where singleton = 1;
  -- This session's cached chunk belongs to the old shard.
  set @sheaf_id_next = null;
  if p_shard <> v_old_shard and not exists (select 1 from sheaf_logical_shards where shard_id = v_old_shard) then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    -- This probe is no id: where none was issued since the last probe, none is issued still.
    update sheaf_settings set probe_k = v_k where singleton = 1 and probe_k = v_k - 1;
    set v_last_ms = greatest((v_k >> (v_old_seq_bits - greatest(v_old_seq_bits - 2, 0))) + v_old_epoch,
      floor(unix_timestamp(sysdate(3)) * 1000)) + 8;
    set v_released = sheaf_release_shard(v_old_shard, v_db, v_last_ms);
  end if;
end;
-- sheaf:break

drop procedure if exists sheaf_add_shard;
-- sheaf:break

-- As in 0005, with the shard claimed in the id space (30016 when another holder has it). Call it in
-- autocommit, as install() calls sheaf_configure: then each statement commits on its own.
create definer = current_user procedure sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_last_ms, v_ahead bigint;
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  -- A free value given back a moment ago, whose last millisecond is at most 1 s ahead of the clock
  -- (sheaf_configure records 8 ms to spare), is waited for as a starting generator waits; read in a
  -- statement of its own, which in autocommit commits before the claim locks the row.
  set v_ahead = (select w.last_timestamp_ms + 1 - c.now_ms
    from sheaf_workers w, (select floor(unix_timestamp(sysdate(3)) * 1000) as now_ms) c
    where w.worker_id = p_shard and w.kind = 'worker' and (w.expires_ms is null or w.expires_ms < c.now_ms));
  if v_ahead between 1 and 1000 then
    do sleep(v_ahead / 1000);
  end if;
  set v_last_ms = sheaf__claim_own_shard(p_shard, false);
  insert ignore into sheaf_logical_shards (shard_id) values (p_shard);
end;
-- sheaf:break

-- Refuses a lease in a database registered elsewhere (30017), and arguments a lease cannot take.
create procedure sheaf__check_lease_args(in p_holder varchar(255), in p_lease_ms integer)
  not deterministic reads sql data
begin
  declare v_registry varchar(255);
  select registry into v_registry from sheaf_settings where singleton = 1;
  if v_registry is not null then
    call sheaf__fail(30017, left(concat('sheaf: worker ids are leased from the registry of this database''s ',
      'shards, not here: ', v_registry), 128));
  end if;
  if p_holder is null or p_holder = '' then
    call sheaf__fail(30002, concat('sheaf: worker holder must be non-empty text, not ',
      coalesce(quote(p_holder), 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: lease_ms must be at least 1, not ', coalesce(p_lease_ms, 'null')));
  end if;
end;
-- sheaf:break

-- Takes worker id `p_id` when it has no row, or a worker row whose lease is free or expired, and
-- sets `p_token` to the new lease's token; NULL when another holder has it. The insert (of a new
-- id) or the update (re-checked on the current row under its lock) is the arbiter; in autocommit
-- each commits on its own, so no lock outlives it. Runs as its definer for the two lease routines.
create procedure sheaf__take_worker(in p_id integer, in p_holder varchar(255), in p_lease_ms integer,
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
-- sheaf:break

drop procedure if exists sheaf_lease_worker;
-- sheaf:break

-- Leases the lowest worker id in [0, p_max_worker] that no database holds and whose lease is free
-- or expired: one row (worker_id, lease_token, last_timestamp_ms). As in 0003 otherwise: of two
-- callers after one id, the second finds it taken and tries the next candidate; each retry means
-- another caller got a lease or a database claimed the value.
create definer = current_user procedure sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer,
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
-- sheaf:break

-- Leases exactly worker id `p_worker_id`, returning the row sheaf_lease_worker returns, or says who
-- holds it (30016): the database whose shard it is, or the holder of a live lease.
create procedure sheaf_lease_worker_id(in p_holder varchar(255), in p_lease_ms integer, in p_worker_id integer)
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
-- sheaf:break

-- Confirms the claims: from here on the routines above are the only ones that read them.
select sheaf__claim_own_shard(s.shard_id, false) as last_ms from sheaf_settings s where s.singleton = 1;
-- sheaf:break

select sheaf__claim_own_shard(l.shard_id, false) as last_ms from sheaf_logical_shards l order by l.shard_id;
