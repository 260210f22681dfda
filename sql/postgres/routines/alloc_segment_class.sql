-- Takes the next `step` ids of the class (the row's step when null) in one UPDATE, whose row lock
-- serialises callers as alloc_segment's does. The range passed over is (old max_id, old max_id +
-- step × delta]; it holds exactly `step` ids of each class, the first at old max_id + 1 + ((remainder
-- − (old max_id + 1)) mod delta). (old max_id + 1) is taken modulo delta first, so nothing near the
-- largest bigint overflows.
create or replace function sheaf.alloc_segment_class(biz_tag text, step integer, delta integer, remainder integer)
returns table (first_id bigint, last_id bigint)
language plpgsql volatile rows 1 security definer set search_path = pg_catalog, pg_temp as $$
declare
  existing sheaf.segments;
begin
  if delta is null or delta < 1 or remainder is null or remainder < 0 or remainder >= delta then
    perform sheaf._fail('SH002', format('segment %s: residue class %s mod %s must satisfy 0 <= remainder < delta',
      coalesce(quote_literal(biz_tag), 'null'), coalesce(remainder::text, 'null'), coalesce(delta::text, 'null')));
  end if;
  if step is not null and step < 1 then
    perform sheaf._fail('SH002', format('segment %s: step must be at least 1, not %s',
      coalesce(quote_literal(biz_tag), 'null'), step));
  end if;
  return query
    with taken as (
      update sheaf.segments s
      set max_id = s.max_id + coalesce(alloc_segment_class.step, s.step)::bigint * s.delta, updated_at = now()
      where s.biz_tag = alloc_segment_class.biz_tag
        and s.delta = alloc_segment_class.delta and s.remainder = alloc_segment_class.remainder
        and s.max_id <= 9223372036854775807 - coalesce(alloc_segment_class.step, s.step)::bigint * s.delta
      returning s.max_id - coalesce(alloc_segment_class.step, s.step)::bigint * s.delta as old_max,
        coalesce(alloc_segment_class.step, s.step) as taken_step
    ), head as (
      select t.old_max + 1 + (alloc_segment_class.remainder - (t.old_max + 1) % alloc_segment_class.delta
        + alloc_segment_class.delta) % alloc_segment_class.delta as first_id, t.taken_step
      from taken t
    )
    select h.first_id, h.first_id + (h.taken_step - 1)::bigint * alloc_segment_class.delta from head h;
  if found then
    return;
  end if;
  select s.* into existing from sheaf.segments s where s.biz_tag = alloc_segment_class.biz_tag;
  if not found then
    if biz_tag is null then
      perform sheaf._fail('SH002', 'segment biz_tag must be non-empty text, not null');
    end if;
    perform sheaf._fail('SH007', format('unknown segment %s; create it with sheaf.create_segment_class()',
      quote_literal(biz_tag)));
  end if;
  if (existing.delta, existing.remainder) <> (delta, remainder) then
    perform sheaf._fail('SH018', format('segment %s is residue class %s mod %s in this database, not %s mod %s',
      quote_literal(biz_tag), existing.remainder, existing.delta, remainder, delta));
  end if;
  perform sheaf._fail('SH011', format('segment %s is exhausted: max_id %s + step %s * delta %s exceeds '
    '9223372036854775807', quote_literal(biz_tag), existing.max_id, coalesce(step, existing.step), existing.delta));
end
$$;
