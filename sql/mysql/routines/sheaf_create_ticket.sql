-- A ticket counter on this server: `step` servers share the name, this one at `p_offset` (1..step).
-- Idempotent: the same name, step and offset again does nothing; another step or offset is NAME_TAKEN.
create definer = current_user procedure {state}.sheaf_create_ticket(in p_name varchar(64), in p_step integer, in p_offset integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_offset integer;
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_name is null or p_name = '' then
    call sheaf__fail(30002, concat('sheaf: ticket name must be non-empty text, not ', coalesce(quote(p_name), 'null')));
  end if;
  if p_step is null or p_step < 1 or p_offset is null or p_offset < 1 or p_offset > p_step then
    call sheaf__fail(30002, concat('sheaf: ticket ', quote(p_name), ': step ', coalesce(p_step, 'null'), ' and offset ',
      coalesce(p_offset, 'null'), ' must satisfy 1 <= offset <= step'));
  end if;
  insert into sheaf_tickets (name, step, ticket_offset) values (p_name, p_step, p_offset);
  if v_taken then
    select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
    if (v_step, v_offset) <> (p_step, p_offset) then
      call sheaf__fail(30010, concat('sheaf: ticket ', quote(p_name), ' already exists with step ', v_step,
        ' and offset ', v_offset));
    end if;
  end if;
end;
