-- Allocates the next range of a segment, for rows of one database only (delta 1): a contiguous
-- range of a row with delta > 1 would hold the ids of the other databases' classes. Security
-- definer: an application needs no right on sheaf's tables.
create or replace function sheaf.alloc_segment(biz_tag text, step integer default null)
returns table (first_id bigint, last_id bigint)
language plpgsql volatile rows 1 security definer set search_path = pg_catalog, pg_temp as $$
declare
  existing sheaf.segments;
begin
  if step is not null and step < 1 then
    perform sheaf._fail('SH002', format('segment %s: step must be at least 1, not %s',
      coalesce(quote_literal(biz_tag), 'null'), step));
  end if;
  -- The bound is checked before adding, so max_id + step never overflows.
  return query
    update sheaf.segments s
    set max_id = s.max_id + coalesce(alloc_segment.step, s.step), updated_at = now()
    where s.biz_tag = alloc_segment.biz_tag and s.delta = 1
      and s.max_id <= 9223372036854775807 - coalesce(alloc_segment.step, s.step)
    returning s.max_id - coalesce(alloc_segment.step, s.step) + 1, s.max_id;
  if found then
    return;
  end if;
  select s.* into existing from sheaf.segments s where s.biz_tag = alloc_segment.biz_tag;
  if not found then
    if biz_tag is null then
      perform sheaf._fail('SH002', 'segment biz_tag must be non-empty text, not null');
    end if;
    perform sheaf._fail('SH007', format('unknown segment %s; create it with sheaf.create_segment()',
      quote_literal(biz_tag)));
  end if;
  if existing.delta <> 1 then
    perform sheaf._fail('SH018', format('segment %s is residue class %s mod %s in this database: allocate it with '
      'alloc_segment_class (a SegmentGenerator over all %s databases)', quote_literal(biz_tag), existing.remainder,
      existing.delta, existing.delta));
  end if;
  perform sheaf._fail('SH011', format('segment %s is exhausted: max_id %s + step %s exceeds 9223372036854775807',
    quote_literal(biz_tag), existing.max_id, coalesce(step, existing.step)));
end
$$;
