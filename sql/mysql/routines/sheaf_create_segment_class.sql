-- Idempotent like sheaf_create_segment: the same tag, class and step again does nothing, as long
-- as max_id was not set higher than the segment reached; anything else is NAME_TAKEN (30010).
create definer = current_user procedure {state}.sheaf_create_segment_class(in p_biz_tag varchar(128), in p_delta integer, in p_remainder integer,
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
