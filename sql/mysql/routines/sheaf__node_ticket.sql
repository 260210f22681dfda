-- The next value of a Galera node's ticket counter (slot 0 to 7), first moved to p_floor when that
-- is above it. One branch per slot, as in sheaf__node_claim.
create definer = current_user function {state}.sheaf__node_ticket(p_slot integer, p_floor bigint) returns bigint
  not deterministic modifies sql data
begin
  declare v_k bigint;
  case p_slot
  when 0 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_0 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_0 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_0 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_0 where k = v_k;
  when 1 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_1 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_1 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_1 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_1 where k = v_k;
  when 2 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_2 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_2 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_2 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_2 where k = v_k;
  when 3 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_3 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_3 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_3 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_3 where k = v_k;
  when 4 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_4 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_4 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_4 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_4 where k = v_k;
  when 5 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_5 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_5 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_5 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_5 where k = v_k;
  when 6 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_6 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_6 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_6 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_6 where k = v_k;
  when 7 then
    if p_floor > 1 then
      insert ignore into sheaf_node_tickets_7 (k) values (p_floor - 1);
      delete from sheaf_node_tickets_7 where k = p_floor - 1;
    end if;
    insert into sheaf_node_tickets_7 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_tickets_7 where k = v_k;
  end case;
  return v_k;
end;
