-- Idempotent: the same biz_tag and step again does nothing, as long as max_id has not been set
-- higher than the segment reached. The description is not part of the definition.
create or replace function sheaf.create_segment(
  biz_tag text,
  step integer default 1000,
  max_id bigint default 0,
  description text default null
) returns void
language plpgsql volatile as $$
declare
  existing sheaf.segments;
begin
  if biz_tag is null or biz_tag = '' then
    perform sheaf._fail('SH002', format('segment biz_tag must be non-empty text, not %s',
      coalesce(quote_literal(biz_tag), 'null')));
  end if;
  if step is null or step < 1 then
    perform sheaf._fail('SH002', format('segment %s: step must be at least 1, not %s', quote_literal(biz_tag),
      coalesce(step::text, 'null')));
  end if;
  if max_id is null or max_id < 0 then
    perform sheaf._fail('SH002', format('segment %s: max_id must be 0 or more, not %s', quote_literal(biz_tag),
      coalesce(max_id::text, 'null')));
  end if;
  insert into sheaf.segments (biz_tag, max_id, step, description)
  values (create_segment.biz_tag, create_segment.max_id, create_segment.step, create_segment.description)
  on conflict on constraint segments_pkey do nothing;
  if found then
    return;
  end if;
  select s.* into existing from sheaf.segments s where s.biz_tag = create_segment.biz_tag;
  if existing.step <> step or existing.max_id < max_id then
    perform sheaf._fail('SH010', format('segment %s already exists with step %s and max_id %s, '
      'not step %s and max_id %s', quote_literal(biz_tag), existing.step, existing.max_id, step, max_id));
  end if;
end
$$;
