-- Takes the next `step` ids of the class (the row's step when p_step is null, read once) in one
-- UPDATE. The range passed over is (old max_id, old max_id + step × delta]: exactly `step` ids of
-- each class, the first at old max_id + 1 + ((remainder − (old max_id + 1)) mod delta). The new
-- max_id comes out through LAST_INSERT_ID(expr), as in sheaf_alloc_segment, and the bound is
-- checked before adding: nothing overflows.
create definer = current_user procedure {state}.sheaf_alloc_segment_class(in p_biz_tag varchar(128), in p_step integer, in p_delta integer,
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
