-- sheaf 0005: Leaf-style segments (Meituan Leaf-segment). One row per business tag; each
-- sheaf.alloc_segment() call moves max_id forward by a step and returns the range it passed over,
-- which the caller hands out from memory.
-- Needs: 0001, 0002 (sheaf._fail). PostgreSQL 13+ (or PGlite); no superuser, no extension.

create table sheaf.segments (
  biz_tag text primary key check (biz_tag <> ''),
  max_id bigint not null default 0 check (max_id >= 0),
  step integer not null check (step > 0),
  description text,
  updated_at timestamptz not null default now()
);
-- sheaf:break

-- Idempotent: the same biz_tag and step again does nothing, as long as max_id has not been set
-- higher than the segment reached. The description is not part of the definition.
create function sheaf.create_segment(
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
-- sheaf:break

-- Takes the next range in one UPDATE. Its row lock lasts until the caller's transaction ends, so
-- concurrent callers queue behind an open transaction: allocate in autocommit or short transactions.
create function sheaf.alloc_segment(biz_tag text, step integer default null)
returns table (first_id bigint, last_id bigint)
language plpgsql volatile rows 1 as $$
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
    where s.biz_tag = alloc_segment.biz_tag
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
  perform sheaf._fail('SH011', format('segment %s is exhausted: max_id %s + step %s exceeds 9223372036854775807',
    quote_literal(biz_tag), existing.max_id, coalesce(step, existing.step)));
end
$$;
