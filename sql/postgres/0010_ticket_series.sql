-- sheaf 0010: sheaf.ticket_series(name), the step and offset of a ticket on this server. TicketClient
-- reads it to check, before its first ticket, that no two of its servers hand out one value (also
-- beside Flickr-classic servers, whose series it reads from their sequence). Security definer like
-- next_ticket: an application role needs no right on sheaf.tickets. install() grants it to the
-- application roles (every role with usage on schema sheaf) as it grants all their functions.
-- Needs: 0001-0009 (0002: sheaf._fail, 0004: sheaf.tickets). PostgreSQL 13+ (or PGlite).

create function sheaf.ticket_series(name text, out step integer, out "offset" integer)
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
-- sheaf:break

revoke all on function sheaf.ticket_series(text) from public;
