-- One row (step, ticket_offset) of a ticket on this server; on a bound Galera node the node's own
-- series. TicketClient reads it to check that no two of its servers hand out one value.
create definer = current_user procedure {state}.sheaf_ticket_series(in p_name varchar(64))
  not deterministic reads sql data
begin
  declare v_step, v_offset, v_slot integer;
  select step, ticket_offset into v_step, v_offset from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  if @@global.wsrep_on then
    set v_slot = (select slot from sheaf_nodes where node = @@global.wsrep_node_name);
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', @@global.wsrep_node_name,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    select v_step * 8 as step, v_offset + v_slot * v_step as ticket_offset;
  else
    select v_step as step, v_offset as ticket_offset;
  end if;
end;
