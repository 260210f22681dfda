-- The next ticket of a name: (k - 1 + counter_shift) * step + ticket_offset for the next value k of
-- sheaf_ticket_counter. On a Galera node its own counter and series:
-- ((k - 1 + counter_shift) * 8 + slot) * step + ticket_offset (30025 without a shard of its own).
create definer = current_user function {state}.sheaf_next_ticket(p_name varchar(64)) returns bigint
  not deterministic modifies sql data
begin
  declare v_step, v_offset, v_slot integer;
  declare v_shift, v_k bigint;
  declare v_node varchar(64);
  select step, ticket_offset, counter_shift into v_step, v_offset, v_shift from sheaf_tickets where name = p_name;
  if v_step is null then
    call sheaf__fail(30006, concat('sheaf: unknown ticket ', coalesce(quote(p_name), 'null'),
      '; create it with sheaf_create_ticket'));
  end if;
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    set v_slot = (select slot from sheaf_nodes where node = v_node);
    if v_slot is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    return ((sheaf__node_ticket(v_slot, 0) - 1 + v_shift) * 8 + v_slot) * v_step + v_offset;
  end if;
  insert into sheaf_ticket_counter (k) values (null);
  set v_k = last_insert_id();
  delete from sheaf_ticket_counter where k = v_k;
  return (v_k - 1 + v_shift) * v_step + v_offset;
end;
