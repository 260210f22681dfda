-- Takes a ticket over from Flickr-classic ticket servers (`sheaf tickets adopt`, docs/tickets-adopt.md):
-- creates it so that its first value lies above `above` plus `headroom`, in the given step and offset,
-- or, when it exists, checks that it already starts above `above` and changes nothing (SH021 when
-- not). Runs as its caller: the owner or an admin; no application role is granted it.
create or replace function sheaf.adopt_ticket(name text, step integer, "offset" integer, above bigint, headroom bigint default 0,
  out first_ticket bigint, out created boolean)
language plpgsql volatile as $$
declare
  existing sheaf.tickets;
  target numeric;
  sequence_name text;
begin
  if name is null or name = '' then
    perform sheaf._fail('SH002', format('ticket name must be non-empty text, not %s',
      coalesce(quote_literal(name), 'null')));
  end if;
  if step is null or step < 1 then
    perform sheaf._fail('SH002', format('ticket %s: step must be at least 1, not %s', quote_literal(name),
      coalesce(step::text, 'null')));
  end if;
  if "offset" is null or "offset" < 1 or "offset" > step then
    perform sheaf._fail('SH002', format('ticket %s: offset must be from 1 to step %s, not %s', quote_literal(name),
      step, coalesce("offset"::text, 'null')));
  end if;
  if above is null or above < 0 then
    perform sheaf._fail('SH002', format('ticket %s: above, the highest ticket handed out, must be 0 or more, not %s',
      quote_literal(name), coalesce(above::text, 'null')));
  end if;
  if headroom is null or headroom < 0 then
    perform sheaf._fail('SH002', format('ticket %s: headroom must be 0 or more tickets, not %s', quote_literal(name),
      coalesce(headroom::text, 'null')));
  end if;
  -- The first value of the series past above + headroom tickets: the last one up to there, plus a
  -- step. Numeric, so no sum overflows; mod, not a division, which numeric rounds at this size.
  target := above::numeric + headroom::numeric * step;
  target := case when target < "offset" then "offset" else target - mod(target - "offset", step) + step end;
  if target > 9223372036854775807 then
    perform sheaf._fail('SH009', format('ticket %s cannot start above %s plus %s tickets of step %s: %s is past '
      '9223372036854775807', quote_literal(name), above, headroom, step, target));
  end if;
  select t.* into existing from sheaf.tickets t where t.name = adopt_ticket.name;
  if not found then
    sequence_name := 'ticket_' || nextval('sheaf.ticket_numbers');
    execute format('create sequence sheaf.%I as bigint increment by %s minvalue 1 start with %s', sequence_name,
      step, target);
    insert into sheaf.tickets (name, step, "offset", sequence)
    values (adopt_ticket.name, adopt_ticket.step, adopt_ticket."offset", ('sheaf.' || sequence_name)::regclass)
    on conflict on constraint tickets_pkey do nothing;
    if found then
      first_ticket := target;
      created := true;
      return;
    end if;
    -- A concurrent call created the ticket first: check it as an existing one.
    execute format('drop sequence sheaf.%I', sequence_name);
    select t.* into existing from sheaf.tickets t where t.name = adopt_ticket.name;
  end if;
  if (existing.step, existing."offset") is distinct from (step, "offset") then
    perform sheaf._fail('SH010', format('ticket %s already exists with step %s and offset %s, not step %s and offset %s',
      quote_literal(name), existing.step, existing."offset", step, "offset"));
  end if;
  -- Its lowest value: the sequence's start (create_ticket starts at the offset).
  select s.seqstart into first_ticket from pg_catalog.pg_sequence s where s.seqrelid = existing.sequence;
  if first_ticket <= above then
    perform sheaf._fail('SH021', format('ticket %s already starts at %s, not above %s, the highest ticket handed out '
      'by the servers it takes over: its tickets and theirs may be equal', quote_literal(name), first_ticket, above));
  end if;
  created := false;
end
$$;
