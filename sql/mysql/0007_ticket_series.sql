-- sheaf 0007 (MySQL/MariaDB): sheaf_ticket_series(name), as PostgreSQL's 0010: one row (step,
-- ticket_offset) of a ticket on this server. TicketClient reads it to check, before its first
-- ticket, that no two of its servers hand out one value (also beside Flickr-classic servers, whose
-- series it reads from the session's auto_increment_increment/offset). It runs as its definer like
-- sheaf_next_ticket, so an account needs EXECUTE on it and no right on sheaf_tickets; accounts
-- granted routine by routine before this version need that grant added (`sheaf grant` does it).
-- Needs: 0001-0006 (0002: sheaf__fail, 0003: sheaf_tickets). MariaDB 10.3+ or MySQL 8.0+.

create procedure sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
begin
  declare v_step, v_offset integer;
  select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  select v_step as step, v_offset as ticket_offset;
end;
