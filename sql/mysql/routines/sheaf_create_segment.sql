-- A segment row. Idempotent: the same biz_tag and step again does nothing, as long as max_id was not
-- set higher than the segment reached; otherwise NAME_TAKEN. The description is not compared.
create definer = current_user procedure {state}.sheaf_create_segment(in p_biz_tag varchar(128), in p_step integer, in p_max_id bigint,
  in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
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
