-- sheaf__claim_chunk's two row operations on a Galera node's own counter (slot 0 to 7): with p_first_k
-- above 1, first moves the counter to p_first_k - 1 (a no-op when it is past it); then takes the next
-- value and returns it. A statement names its tables, hence one branch per slot.
create definer = current_user function {state}.sheaf__node_claim(p_slot integer, p_first_k bigint) returns bigint
  not deterministic modifies sql data
begin
  declare v_k bigint;
  declare v_s bigint default uuid_short() & 9223372036854775807;
  case p_slot
  when 0 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_0 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_0 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_0 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_0 where k = v_k and s = 0;
  when 1 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_1 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_1 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_1 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_1 where k = v_k and s = 0;
  when 2 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_2 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_2 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_2 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_2 where k = v_k and s = 0;
  when 3 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_3 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_3 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_3 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_3 where k = v_k and s = 0;
  when 4 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_4 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_4 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_4 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_4 where k = v_k and s = 0;
  when 5 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_5 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_5 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_5 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_5 where k = v_k and s = 0;
  when 6 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_6 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_6 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_6 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_6 where k = v_k and s = 0;
  when 7 then
    if p_first_k > 1 then
      insert ignore into sheaf_node_chunks_7 (k, s) values (p_first_k - 1, v_s);
      delete from sheaf_node_chunks_7 where k = p_first_k - 1 and s = v_s;
    end if;
    insert into sheaf_node_chunks_7 (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_node_chunks_7 where k = v_k and s = 0;
  end case;
  return v_k;
end;
