-- sheaf 0011: one segment tag over several databases (tinyid's delta and remainder). A row of
-- sheaf.segments records its residue class: with `delta` databases, this one hands out only ids
-- congruent to `remainder` modulo `delta`, so the databases never need to talk to each other and
-- any of them may be down. delta 1, remainder 0 (every row before this version) is a segment of
-- one database, as before.
-- - create_segment_class(biz_tag, delta, remainder, …) creates a row of a class (as the caller,
--   like create_segment);
-- - segment_class(biz_tag) reads the class: SegmentGenerator checks every database before its first
--   segment;
-- - alloc_segment_class(biz_tag, step, delta, remainder) takes `step` ids of the class: max_id moves
--   by step × delta, and the ids are every delta-th from the first of the class above the old max_id.
--   The class the caller expects is part of the UPDATE's condition, so a database holding another
--   class refuses (SH018) instead of handing out another database's ids;
-- - alloc_segment now refuses a row with delta > 1 (SH018): its contiguous range would cover the
--   other databases' classes.
-- Needs: 0001-0010 (0002: sheaf._fail, 0005: sheaf.segments, 0008: security definer functions).
-- PostgreSQL 13+ (or PGlite); no superuser, no extension.

alter table sheaf.segments
  add column delta integer not null default 1,
  add column remainder integer not null default 0,
  add constraint segments_class_check check (delta >= 1 and remainder >= 0 and remainder < delta);
-- sheaf:break

-- Idempotent like create_segment: the same tag, class and step again does nothing, as long as
-- max_id has not been set higher than the segment reached; anything else is SH010, naming both.
create function sheaf.create_segment_class(
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
-- sheaf:break

-- The class of a tag in this database. Security definer: an application reads it without any
-- right on the table (and so reads nothing else of it).
create function sheaf.segment_class(biz_tag text)
returns table (delta integer, remainder integer)
language plpgsql stable rows 1 security definer set search_path = pg_catalog, pg_temp as $$
begin
  return query select s.delta, s.remainder from sheaf.segments s where s.biz_tag = segment_class.biz_tag;
  if not found then
    perform sheaf._fail('SH007', format('unknown segment %s; create it with sheaf.create_segment_class()',
      coalesce(quote_literal(biz_tag), 'null')));
  end if;
end
$$;
-- sheaf:break

-- Takes the next `step` ids of the class (the row's step when null) in one UPDATE, whose row lock
-- serialises callers as alloc_segment's does. The range passed over is (old max_id, old max_id +
-- step × delta]; it holds exactly `step` ids of each class, the first at old max_id + 1 + ((remainder
-- − (old max_id + 1)) mod delta). (old max_id + 1) is taken modulo delta first, so nothing near the
-- largest bigint overflows.
create function sheaf.alloc_segment_class(biz_tag text, step integer, delta integer, remainder integer)
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
-- sheaf:break

-- As in 0005, for rows of one database only (delta 1): a contiguous range of a row with delta > 1
-- would hold the ids of the other databases' classes. Security definer as since 0008.
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
-- sheaf:break

revoke all on function sheaf.create_segment_class(text, integer, integer, integer, bigint, text) from public;
-- sheaf:break

revoke all on function sheaf.segment_class(text) from public;
-- sheaf:break

revoke all on function sheaf.alloc_segment_class(text, integer, integer, integer) from public;
-- sheaf:break

-- A role that may allocate segments may allocate them by class: roles granted before this version
-- get the new functions here, later ones from `sheaf grant`.
do $$
declare
  grantee regrole;
begin
  for grantee in
    select distinct a.grantee::regrole
    from pg_proc p, aclexplode(p.proacl) a
    where p.oid = 'sheaf.alloc_segment(text, integer)'::regprocedure and a.privilege_type = 'EXECUTE'
      and a.grantee <> 0 and a.grantee <> p.proowner
  loop
    execute format('grant execute on function sheaf.segment_class(text) to %s', grantee);
    execute format('grant execute on function sheaf.alloc_segment_class(text, integer, integer, integer) to %s',
      grantee);
  end loop;
end
$$;
