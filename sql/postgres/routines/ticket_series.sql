-- The step and offset of a ticket on this server. TicketClient reads it to check, before its first
-- ticket, that no two of its servers hand out one value. Security definer like next_ticket: an
-- application role needs no right on sheaf.tickets.
create or replace function sheaf.ticket_series(name text, out step integer, out "offset" integer)
language plpgsql stable security definer set search_path = pg_catalog, pg_temp as $$
begin
  select t.step, t."offset" into ticket_series.step, ticket_series."offset"
  from sheaf.tickets t where t.name = ticket_series.name;
  if not found then
    if name is null then
      perform sheaf._fail('SH002', 'ticket name must be non-empty text, not null');
    end if;
    perform sheaf._fail('SH006', format('unknown ticket %s; create it with sheaf.create_ticket()', quote_literal(name)));
  end if;
end
$$;
