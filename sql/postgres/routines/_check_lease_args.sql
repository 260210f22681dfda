-- Refuses a lease in a database registered elsewhere, and arguments a lease cannot take.
create or replace function sheaf._check_lease_args(holder text, lease_ms integer) returns void
language plpgsql stable as $$
declare
  registry text := (select s.registry from sheaf.settings s);
begin
  if registry is not null then
    perform sheaf._fail('SH017', format('worker ids are leased from the registry of this database''s shards, %s, '
      'not here: give the generator an executor of that database', registry));
  end if;
  if holder is null or holder = '' then
    perform sheaf._fail('SH002', format('worker holder must be non-empty text, not %s',
      coalesce(quote_literal(holder), 'null')));
  end if;
  if lease_ms is null or lease_ms < 1 then
    perform sheaf._fail('SH002', format('lease_ms must be at least 1, not %s', coalesce(lease_ms::text, 'null')));
  end if;
end
$$;
