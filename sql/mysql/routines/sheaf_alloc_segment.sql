-- Takes the next range of a segment of one database only (delta 1: a contiguous range of a row with
-- delta > 1 would hold the ids of the other databases' classes) in one UPDATE and returns one row
-- (first_id, last_id); p_step null takes the row's step, read once. The UPDATE carries the new
-- max_id out through LAST_INSERT_ID(expr), so it also becomes the caller's LAST_INSERT_ID(). The
-- bound is checked before adding: max_id + step never overflows.
create definer = current_user procedure {state}.sheaf_alloc_segment(in p_biz_tag varchar(128), in p_step integer)
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
