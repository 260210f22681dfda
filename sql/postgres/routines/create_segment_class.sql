-- Idempotent like create_segment: the same tag, class and step again does nothing, as long as
-- max_id has not been set higher than the segment reached; anything else is SH010, naming both.
create or replace function sheaf.create_segment_class(
  biz_tag text,
  delta integer,
  remainder integer,
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
  if delta is null or delta < 1 or remainder is null or remainder < 0 or remainder >= delta then
    perform sheaf._fail('SH002', format('segment %s: residue class %s mod %s must satisfy 0 <= remainder < delta',
      quote_literal(biz_tag), coalesce(remainder::text, 'null'), coalesce(delta::text, 'null')));
  end if;
  if step is null or step < 1 then
    perform sheaf._fail('SH002', format('segment %s: step must be at least 1, not %s', quote_literal(biz_tag),
      coalesce(step::text, 'null')));
  end if;
  if max_id is null or max_id < 0 then
    perform sheaf._fail('SH002', format('segment %s: max_id must be 0 or more, not %s', quote_literal(biz_tag),
      coalesce(max_id::text, 'null')));
  end if;
  insert into sheaf.segments (biz_tag, max_id, step, description, delta, remainder)
  values (create_segment_class.biz_tag, create_segment_class.max_id, create_segment_class.step,
    create_segment_class.description, create_segment_class.delta, create_segment_class.remainder)
  on conflict on constraint segments_pkey do nothing;
  if found then
    return;
  end if;
  select s.* into existing from sheaf.segments s where s.biz_tag = create_segment_class.biz_tag;
  if (existing.delta, existing.remainder, existing.step) <> (delta, remainder, step) or existing.max_id < max_id then
    perform sheaf._fail('SH010', format('segment %s already exists with class %s mod %s, step %s and max_id %s, '
      'not class %s mod %s, step %s and max_id %s', quote_literal(biz_tag), existing.remainder, existing.delta,
      existing.step, existing.max_id, remainder, delta, step, max_id));
  end if;
end
$$;
