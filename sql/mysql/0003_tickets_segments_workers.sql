-- sheaf 0003 (MySQL/MariaDB): Flickr-style tickets, Leaf-style segments and worker-id leases, with
-- the semantics of PostgreSQL's 0004-0006.
-- Needs: 0001, 0002 (sheaf__fail). MariaDB 10.3+ or MySQL 8.0+. Call these in autocommit: segments
-- and leases update InnoDB rows, whose locks last until the caller commits. In autocommit each
-- statement of a procedure commits on its own.

-- Unix ms now, read when the statement gets to it (NOW() and UTC_TIMESTAMP() are frozen for the
-- whole statement, also across a lock wait).
create function sheaf__now_ms() returns bigint
  not deterministic no sql
  return floor(unix_timestamp(sysdate(3)) * 1000);
-- sheaf:break

-- A ticket counter on this server: `step` servers share the name, this one at `p_offset` (1..step).
-- Idempotent: the same name, step and offset again does nothing; another step or offset is NAME_TAKEN.
create procedure sheaf_create_ticket(in p_name varchar(64), in p_step integer, in p_offset integer)
  not deterministic modifies sql data
begin
  declare v_step, v_offset integer;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_name is null or p_name = '' then
    call sheaf__fail(30002, concat('sheaf: ticket name must be non-empty text, not ', coalesce(quote(p_name), 'null')));
  end if;
  if p_step is null or p_step < 1 or p_offset is null or p_offset < 1 or p_offset > p_step then
    call sheaf__fail(30002, concat('sheaf: ticket ', quote(p_name), ': step ', coalesce(p_step, 'null'), ' and offset ',
      coalesce(p_offset, 'null'), ' must satisfy 1 <= offset <= step'));
  end if;
  insert into sheaf_tickets (name, step, ticket_offset) values (p_name, p_step, p_offset);
  if v_taken then
    select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
    if (v_step, v_offset) <> (p_step, p_offset) then
      call sheaf__fail(30010, concat('sheaf: ticket ', quote(p_name), ' already exists with step ', v_step,
        ' and offset ', v_offset));
    end if;
  end if;
end;
-- sheaf:break

-- The next ticket: Flickr's REPLACE INTO + LAST_INSERT_ID() as one InnoDB AUTO_INCREMENT value,
-- with the name's own step and offset instead of the server-wide auto_increment_increment/offset.
-- Tickets of one server grow; two servers with step 2 and offsets 1 and 2 hand out odd and even.
create function sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
begin
  declare v_step, v_offset integer;
  declare v_k bigint;
  select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  insert into sheaf_ticket_counter (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_ticket_counter where k = v_k;
  return (v_k - 1) * v_step + v_offset;
end;
-- sheaf:break

-- A segment row. Idempotent: the same biz_tag and step again does nothing, as long as max_id was not
-- set higher than the segment reached; otherwise NAME_TAKEN. The description is not compared.
create procedure sheaf_create_segment(in p_biz_tag varchar(128), in p_step integer, in p_max_id bigint,
  in p_description varchar(256))
  not deterministic modifies sql data
begin
  declare v_step integer;
  declare v_max bigint;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_biz_tag is null or p_biz_tag = '' then
    call sheaf__fail(30002, concat('sheaf: segment biz_tag must be non-empty text, not ',
      coalesce(quote(p_biz_tag), 'null')));
  end if;
  if p_step is null or p_step < 1 then
    call sheaf__fail(30002, concat('sheaf: segment ', quote(p_biz_tag), ': step must be at least 1, not ',
      coalesce(p_step, 'null')));
  end if;
  if p_max_id is null or p_max_id < 0 then
    call sheaf__fail(30002, concat('sheaf: segment ', quote(p_biz_tag), ': max_id must be 0 or more, not ',
      coalesce(p_max_id, 'null')));
  end if;
  insert into sheaf_segments (biz_tag, max_id, step, description) values (p_biz_tag, p_max_id, p_step, p_description);
  if v_taken then
    select step, max_id into v_step, v_max from sheaf_segments where biz_tag = p_biz_tag;
    if v_step <> p_step or v_max < p_max_id then
      call sheaf__fail(30010, concat('sheaf: segment ', quote(p_biz_tag), ' already exists with step ', v_step,
        ' and max_id ', v_max, ', not step ', p_step, ' and max_id ', p_max_id));
    end if;
  end if;
end;
-- sheaf:break

-- Takes the next range in one UPDATE and returns one row (first_id, last_id); p_step null takes the
-- row's step, read once, so the range and the update agree even if the row's step changes meanwhile.
-- The UPDATE carries the new max_id out through LAST_INSERT_ID(expr), so it also becomes the
-- caller's LAST_INSERT_ID(). The bound is checked before adding: max_id + step never overflows.
create procedure sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
  not deterministic modifies sql data
begin
  declare v_step, v_max bigint;
  declare v_done boolean default false;
  if p_step is not null and p_step < 1 then
    call sheaf__fail(30002, concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'),
      ': step must be at least 1, not ', p_step));
  end if;
  set v_step = coalesce(p_step, (select step from sheaf_segments where biz_tag = p_biz_tag));
  if v_step is not null then
    update sheaf_segments set max_id = last_insert_id(max_id + v_step), updated_at = current_timestamp(3)
      where biz_tag = p_biz_tag and max_id <= 9223372036854775807 - v_step;
    set v_done = row_count() = 1;
  end if;
  if v_done then
    set v_max = last_insert_id();
    select v_max - v_step + 1 as first_id, v_max as last_id;
  else
    set v_max = (select max_id from sheaf_segments where biz_tag = p_biz_tag);
    if v_max is null then
      call sheaf__fail(30007, concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
        '; create it with sheaf_create_segment'));
    end if;
    call sheaf__fail(30011, concat('sheaf: segment ', quote(p_biz_tag), ' is exhausted: max_id ', v_max, ' + step ',
      v_step, ' exceeds 9223372036854775807'));
  end if;
end;
-- sheaf:break

-- Leases the lowest worker id in [0, p_max_worker] that has no row, was released or has expired:
-- one row (worker_id, lease_token, last_timestamp_ms). The insert (of a new id) or the update (of
-- an expired one, re-checked under its row lock) is the arbiter: of two callers after one id, the
-- second finds the row there or no longer expired and tries the next candidate; each retry means
-- another caller got a lease.
create procedure sheaf_lease_worker(in p_holder varchar(255), in p_lease_ms integer, in p_max_worker integer)
  not deterministic modifies sql data
begin
  declare v_id, v_got integer;
  declare v_token char(36);
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_holder is null or p_holder = '' then
    call sheaf__fail(30002, concat('sheaf: worker holder must be non-empty text, not ',
      coalesce(quote(p_holder), 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: lease_ms must be at least 1, not ', coalesce(p_lease_ms, 'null')));
  end if;
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
        where w.worker_id <= p_max_worker and (w.expires_ms is null or w.expires_ms < sheaf__now_ms())
    ) c;
    if v_id is null then
      call sheaf__fail(30012, concat('sheaf: all ', p_max_worker + 1, ' worker ids from 0 to ', p_max_worker,
        ' are leased; holder ', quote(p_holder), ' got none'));
    end if;
    set v_token = uuid(), v_taken = false;
    insert into sheaf_workers (worker_id, holder, lease_token, expires_ms, heartbeat_ms)
      values (v_id, p_holder, v_token, sheaf__now_ms() + p_lease_ms, sheaf__now_ms());
    set v_got = if(v_taken, 0, 1);
    if v_taken then
      update sheaf_workers
        set holder = p_holder, lease_token = v_token, expires_ms = sheaf__now_ms() + p_lease_ms,
          heartbeat_ms = sheaf__now_ms()
        where worker_id = v_id and (expires_ms is null or expires_ms < sheaf__now_ms());
      set v_got = row_count();
    end if;
    if v_got = 1 then
      select worker_id, lease_token, last_timestamp_ms from sheaf_workers where worker_id = v_id;
      leave lease;
    end if;
  end loop;
end;
-- sheaf:break

-- Extends a lease and records how far the holder's clock got (the greater of it and the stored
-- value); returns the new expiry (unix ms). LEASE_LOST when the lease was taken over, released or
-- has expired: the holder must stop issuing ids.
create function sheaf_heartbeat_worker(p_worker_id integer, p_token char(36), p_last_ms bigint, p_lease_ms integer)
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
-- sheaf:break

-- Frees a worker id and records the holder's final last_timestamp_ms. Returns false, changing
-- nothing, when the token no longer holds the id: releasing a lost lease is harmless.
create function sheaf_release_worker(p_worker_id integer, p_token char(36), p_last_ms bigint) returns boolean
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
