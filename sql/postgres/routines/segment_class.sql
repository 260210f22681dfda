-- The class of a tag in this database. Security definer: an application reads it without any
-- right on the table (and so reads nothing else of it).
create or replace function sheaf.segment_class(biz_tag text)
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
