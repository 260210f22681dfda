-- Idempotent: creating a ticket again with the same step and offset does nothing.
create or replace function sheaf.create_ticket(name text, step integer default 1, "offset" integer default 1) returns void
language plpgsql volatile as $$
declare
  existing sheaf.tickets;
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
  select t.* into existing from sheaf.tickets t where t.name = create_ticket.name;
  if not found then
    sequence_name := 'ticket_' || nextval('sheaf.ticket_numbers');
    execute format('create sequence sheaf.%I as bigint increment by %s minvalue 1 start with %s', sequence_name,
      step, "offset");
    insert into sheaf.tickets (name, step, "offset", sequence)
    values (create_ticket.name, create_ticket.step, create_ticket."offset", ('sheaf.' || sequence_name)::regclass)
    on conflict on constraint tickets_pkey do nothing;
    if found then
      return;
    end if;
    -- A concurrent call created the ticket first: compare with its definition.
    execute format('drop sequence sheaf.%I', sequence_name);
    select t.* into existing from sheaf.tickets t where t.name = create_ticket.name;
  end if;
  if (existing.step, existing."offset") is distinct from (step, "offset") then
    perform sheaf._fail('SH010', format('ticket %s already exists with step %s and offset %s, not step %s and offset %s',
      quote_literal(name), existing.step, existing."offset", step, "offset"));
  end if;
end
$$;
