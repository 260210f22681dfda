-- The class of a tag in this database: one row (delta, remainder).
create definer = current_user procedure {state}.sheaf_segment_class(in p_biz_tag varchar(128))
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
