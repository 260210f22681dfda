-- The hot path: one index lookup and nextval(). A sequence never waits for another transaction,
-- and a value taken in a rolled-back transaction is never handed out again.
create or replace function sheaf.next_ticket(name text) returns bigint
language plpgsql volatile security definer set search_path = pg_catalog, pg_temp as $$
declare
  ticket bigint;
begin
  select nextval(t.sequence) into ticket from sheaf.tickets t where t.name = next_ticket.name;
  if ticket is null then
    if name is null then
      perform sheaf._fail('SH002', 'ticket name must be non-empty text, not null');
    end if;
    perform sheaf._fail('SH006', format('unknown ticket %s; create it with sheaf.create_ticket()', quote_literal(name)));
  end if;
  return ticket;
end
$$;
