-- One row (first_ticket, created). Runs as its caller, like sheaf_create_ticket: only an account
-- with rights on sheaf_tickets and sheaf_ticket_counter (an admin) can. Changes the caller's
-- LAST_INSERT_ID() when it creates the ticket.
create definer = current_user procedure {state}.sheaf_adopt_ticket(in p_name varchar(64), in p_step integer, in p_offset integer, in p_above bigint,
  in p_headroom bigint)
  not deterministic modifies sql data sql security invoker
begin
  declare v_step, v_offset integer;
  declare v_first, v_k bigint;
  declare v_target decimal(40, 0);
  declare v_taken boolean default false;
  declare continue handler for 1062 set v_taken = true;
  if p_name is null or p_name = '' then
    -- QUOTE(NULL) is the word NULL, not NULL.
    call sheaf__fail(30002, concat('sheaf: ticket name must be non-empty text, not ', if(p_name is null, 'null',
      quote(p_name))));
  end if;
  if p_step is null or p_step < 1 or p_offset is null or p_offset < 1 or p_offset > p_step then
    call sheaf__fail(30002, left(concat('sheaf: ticket ', quote(p_name), ': step ', coalesce(p_step, 'null'),
      ' and offset ', coalesce(p_offset, 'null'), ' must satisfy 1 <= offset <= step'), 128));
  end if;
  if p_above is null or p_above < 0 or p_headroom is null or p_headroom < 0 then
    call sheaf__fail(30002, left(concat('sheaf: ticket ', quote(p_name), ': above ', coalesce(p_above, 'null'),
      ' and headroom ', coalesce(p_headroom, 'null'), ' must be 0 or more'), 128));
  end if;
  -- The first value of the series past above + headroom tickets: the last one up to there, plus a
  -- step. Decimal, so no sum overflows; mod, not a division, which decimal rounds.
  set v_target = p_above + cast(p_headroom as decimal(40, 0)) * p_step;
  set v_target = if(v_target < p_offset, p_offset, v_target - mod(v_target - p_offset, p_step) + p_step);
  if v_target > 9223372036854775807 then
    call sheaf__fail(30009, left(concat('sheaf: ticket ', quote(p_name), ' cannot start above ', p_above, ' plus ',
      p_headroom, ' tickets of step ', p_step, ': past 9223372036854775807'), 128));
  end if;
  select step, ticket_offset, coalesce(first_ticket, ticket_offset) into v_step, v_offset, v_first
    from sheaf_tickets where name = p_name;
  if v_step is null then
    -- Every value the counter hands out later is above v_k, so the name's tickets start at v_target.
    insert into sheaf_ticket_counter (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_ticket_counter where k = v_k;
    insert into sheaf_tickets (name, step, ticket_offset, counter_shift, first_ticket)
      values (p_name, p_step, p_offset, (v_target - p_offset) div p_step - v_k, v_target);
    if not v_taken then
      select cast(v_target as signed) as first_ticket, true as created;
    else
      -- A concurrent call created the ticket first: check it as an existing one.
      select step, ticket_offset, coalesce(first_ticket, ticket_offset) into v_step, v_offset, v_first
        from sheaf_tickets where name = p_name;
    end if;
  end if;
  if v_first is not null then
    if (v_step, v_offset) <> (p_step, p_offset) then
      call sheaf__fail(30010, left(concat('sheaf: ticket ', quote(p_name), ' already exists with step ', v_step,
        ' and offset ', v_offset, ', not step ', p_step, ' and offset ', p_offset), 128));
    end if;
    if v_first <= p_above then
      call sheaf__fail(30021, left(concat('sheaf: ticket ', quote(p_name), ' already starts at ', v_first,
        ', not above ', p_above, ': its tickets and those of the servers it takes over may be equal'), 128));
    end if;
    select v_first as first_ticket, false as created;
  end if;
end;
