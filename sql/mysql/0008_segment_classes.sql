-- sheaf 0008 (MySQL/MariaDB): one segment tag over several databases, as PostgreSQL's 0011. A row
-- of sheaf_segments records its residue class (tinyid's delta and remainder): with `delta`
-- databases, this one hands out only ids congruent to `remainder` modulo `delta`. delta 1,
-- remainder 0 (every row before this version) is a segment of one database, as before.
-- - sheaf_create_segment_class creates a row of a class (as its caller, like sheaf_create_segment);
-- - sheaf_segment_class(biz_tag) returns one row (delta, remainder): SegmentGenerator checks every
--   database before its first segment;
-- - sheaf_alloc_segment_class(biz_tag, step, delta, remainder) returns one row (first_id, last_id):
--   max_id moves by step × delta, and the ids are every delta-th from the first of the class above
--   the old max_id. The class the caller expects is part of the UPDATE's condition, so a database
--   holding another class refuses (30018) instead of handing out another database's ids;
-- - sheaf_alloc_segment now refuses a row with delta > 1 (30018).
-- Applied again after failing half-way: the columns and the constraint are added only when
-- missing, and the replaced sheaf_alloc_segment is created with `create definer = current_user`
-- after its own `drop` (install() drops what the file creates with `create procedure` first).
-- The routines run as their definer like sheaf_alloc_segment; accounts granted routine by routine
-- get EXECUTE on the new ones where install() restores their grant of sheaf_alloc_segment.
-- Needs: 0001-0007 (0002: sheaf__fail, 0003: sheaf_segments). MariaDB 10.3+ or MySQL 8.0 (CHECK
-- constraints enforced from 8.0.16). Call the routines in autocommit, as sheaf_alloc_segment.

create procedure sheaf__segment_classes_0008()
  not deterministic modifies sql data
begin
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_segments' and column_name = 'delta') then
    alter table sheaf_segments add column delta integer not null default 1;
  end if;
  if not exists (select 1 from information_schema.columns
      where table_schema = database() and table_name = 'sheaf_segments' and column_name = 'remainder') then
    alter table sheaf_segments add column remainder integer not null default 0;
  end if;
  if not exists (select 1 from information_schema.table_constraints where constraint_schema = database()
      and table_name = 'sheaf_segments' and constraint_name = 'sheaf_segments_class') then
    alter table sheaf_segments add constraint sheaf_segments_class
      check (delta >= 1 and remainder >= 0 and remainder < delta);
  end if;
end;
-- sheaf:break

call sheaf__segment_classes_0008();
-- sheaf:break

drop procedure sheaf__segment_classes_0008;
-- sheaf:break

-- Idempotent like sheaf_create_segment: the same tag, class and step again does nothing, as long
-- as max_id was not set higher than the segment reached; anything else is NAME_TAKEN (30010).
create procedure sheaf_create_segment_class(in p_biz_tag varchar(128), in p_delta integer, in p_remainder integer,
  in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_delta, v_remainder integer;
  declare v_max bigint;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_biz_tag is null or p_biz_tag = '' then
    call sheaf__fail(30002, concat('sheaf: segment biz_tag must be non-empty text, not ',
      coalesce(quote(p_biz_tag), 'null')));
  end if;
  if p_delta is null or p_delta < 1 or p_remainder is null or p_remainder < 0 or p_remainder >= p_delta then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': residue class ',
      coalesce(p_remainder, 'null'), ' mod ', coalesce(p_delta, 'null'), ' must satisfy 0 <= remainder < delta'), 128));
  end if;
  if p_step is null or p_step < 1 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': step must be at least 1, not ',
      coalesce(p_step, 'null')), 128));
  end if;
  if p_max_id is null or p_max_id < 0 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', quote(p_biz_tag), ': max_id must be 0 or more, not ',
      coalesce(p_max_id, 'null')), 128));
  end if;
  insert into sheaf_segments (biz_tag, max_id, step, description, delta, remainder)
    values (p_biz_tag, p_max_id, p_step, p_description, p_delta, p_remainder);
  if v_taken then
    select step, max_id, delta, remainder into v_step, v_max, v_delta, v_remainder
      from sheaf_segments where biz_tag = p_biz_tag;
    if (v_delta, v_remainder, v_step) <> (p_delta, p_remainder, p_step) or v_max < p_max_id then
      call sheaf__fail(30010, left(concat('sheaf: segment ', quote(p_biz_tag), ' already exists with class ',
        v_remainder, ' mod ', v_delta, ', step ', v_step, ' and max_id ', v_max, ', not class ', p_remainder, ' mod ',
        p_delta, ', step ', p_step, ' and max_id ', p_max_id), 128));
    end if;
  end if;
end;
-- sheaf:break

-- The class of a tag in this database: one row (delta, remainder).
create procedure sheaf_segment_class(in p_biz_tag varchar(128))
  not deterministic reads sql data
begin
  declare v_delta, v_remainder integer;
  select delta, remainder into v_delta, v_remainder from sheaf_segments where biz_tag = p_biz_tag;
  if v_delta is null then
    call sheaf__fail(30007, left(concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
      '; create it with sheaf_create_segment_class'), 128));
  end if;
  select v_delta as delta, v_remainder as remainder;
end;
-- sheaf:break

-- Takes the next `step` ids of the class (the row's step when p_step is null, read once) in one
-- UPDATE. The range passed over is (old max_id, old max_id + step × delta]: exactly `step` ids of
-- each class, the first at old max_id + 1 + ((remainder − (old max_id + 1)) mod delta). The new
-- max_id comes out through LAST_INSERT_ID(expr), as in sheaf_alloc_segment, and the bound is
-- checked before adding: nothing overflows.
create procedure sheaf_alloc_segment_class(in p_biz_tag varchar(128), in p_step integer, in p_delta integer,
  in p_remainder integer)
  not deterministic modifies sql data
begin
  declare v_step, v_width, v_old, v_first, v_max bigint;
  declare v_delta, v_remainder integer;
  declare v_done boolean default false;
  if p_delta is null or p_delta < 1 or p_remainder is null or p_remainder < 0 or p_remainder >= p_delta then
    call sheaf__fail(30002, left(concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'), ': residue class ',
      coalesce(p_remainder, 'null'), ' mod ', coalesce(p_delta, 'null'), ' must satisfy 0 <= remainder < delta'), 128));
  end if;
  if p_step is not null and p_step < 1 then
    call sheaf__fail(30002, left(concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'),
      ': step must be at least 1, not ', p_step), 128));
  end if;
  set v_step = coalesce(p_step, (select step from sheaf_segments where biz_tag = p_biz_tag));
  if v_step is not null then
    set v_width = v_step * p_delta;
    update sheaf_segments set max_id = last_insert_id(max_id + v_width), updated_at = current_timestamp(3)
      where biz_tag = p_biz_tag and delta = p_delta and remainder = p_remainder
        and max_id <= 9223372036854775807 - v_width;
    set v_done = row_count() = 1;
  end if;
  if v_done then
    set v_old = last_insert_id();
    set v_old = v_old - v_width;
    set v_first = v_old + 1 + mod(p_remainder - mod(v_old + 1, p_delta) + p_delta, p_delta);
    select v_first as first_id, v_first + (v_step - 1) * p_delta as last_id;
  else
    set v_delta = (select delta from sheaf_segments where biz_tag = p_biz_tag);
    if v_delta is null then
      call sheaf__fail(30007, left(concat('sheaf: unknown segment ', coalesce(quote(p_biz_tag), 'null'),
        '; create it with sheaf_create_segment_class'), 128));
    end if;
    select remainder, max_id into v_remainder, v_max from sheaf_segments where biz_tag = p_biz_tag;
    if v_delta <> p_delta or v_remainder <> p_remainder then
      call sheaf__fail(30018, left(concat('sheaf: segment ', quote(p_biz_tag), ' is residue class ', v_remainder,
        ' mod ', v_delta, ' in this database, not ', p_remainder, ' mod ', p_delta), 128));
    end if;
    call sheaf__fail(30011, left(concat('sheaf: segment ', quote(p_biz_tag), ' is exhausted: max_id ', v_max,
      ' + step ', v_step, ' * delta ', p_delta, ' exceeds 9223372036854775807'), 128));
  end if;
end;
-- sheaf:break

drop procedure if exists sheaf_alloc_segment;
-- sheaf:break

-- As in 0003, for rows of one database only (delta 1): a contiguous range of a row with delta > 1
-- would hold the ids of the other databases' classes.
create definer = current_user procedure sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
  not deterministic modifies sql data
begin
  declare v_step, v_max bigint;
  declare v_delta, v_remainder integer;
  declare v_done boolean default false;
  if p_step is not null and p_step < 1 then
    call sheaf__fail(30002, concat('sheaf: segment ', coalesce(quote(p_biz_tag), 'null'),
      ': step must be at least 1, not ', p_step));
  end if;
  set v_step = coalesce(p_step, (select step from sheaf_segments where biz_tag = p_biz_tag));
  if v_step is not null then
    update sheaf_segments set max_id = last_insert_id(max_id + v_step), updated_at = current_timestamp(3)
      where biz_tag = p_biz_tag and delta = 1 and max_id <= 9223372036854775807 - v_step;
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
    select delta, remainder into v_delta, v_remainder from sheaf_segments where biz_tag = p_biz_tag;
    if v_delta <> 1 then
      call sheaf__fail(30018, left(concat('sheaf: segment ', quote(p_biz_tag), ' is residue class ', v_remainder,
        ' mod ', v_delta, ' in this database: allocate it with sheaf_alloc_segment_class'), 128));
    end if;
    call sheaf__fail(30011, concat('sheaf: segment ', quote(p_biz_tag), ' is exhausted: max_id ', v_max, ' + step ',
      v_step, ' exceeds 9223372036854775807'));
  end if;
end;
