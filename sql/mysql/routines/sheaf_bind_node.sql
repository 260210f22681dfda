-- Binds this Galera node (its wsrep_node_name) to p_shard and the lowest free counter slot: from then
-- on it issues p_shard, and only it. Idempotent for the shard the node has; refused for another one (a node keeps its shard: ids of
-- the old one may be ahead of the clock), for a shard another node has (30016), for a name two
-- members of the cluster share (30025: they would share one shard), and off Galera (30002). The
-- shard is claimed in the id space for this database first, as sheaf_add_shard claims a logical
-- one. Two nodes binding one shard at once: certification aborts one (1213), and its retry is
-- refused (so is a ninth node). SQL SECURITY INVOKER: an admin's; call it in autocommit.
create definer = current_user procedure {state}.sheaf_bind_node(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  declare v_node, v_holder varchar(64);
  declare v_bound, v_slot integer;
  declare v_last_ms, v_first_ticket bigint;
  if not @@global.wsrep_on then
    call sheaf__fail(30002, 'sheaf: sheaf_bind_node is for Galera nodes, and wsrep_on is OFF here');
  end if;
  call sheaf__check_shard(p_shard, (select shard_bits from sheaf_settings where singleton = 1));
  set v_node = @@global.wsrep_node_name;
  if (select count(*) from mysql.wsrep_cluster_members where node_name = v_node) > 1 then
    call sheaf__fail(30025, left(concat('sheaf: several Galera nodes are named ', v_node,
      ': give each a wsrep_node_name of its own'), 128));
  end if;
  set v_bound = (select shard_id from sheaf_nodes where node = v_node);
  if v_bound <> p_shard then
    call sheaf__fail(30002, left(concat('sheaf: Galera node ', v_node, ' issues shard ', v_bound,
      ', not ', p_shard, ': a node keeps its shard'), 128));
  end if;
  if v_bound is null then
    set v_holder = (select node from sheaf_nodes where shard_id = p_shard);
    if v_holder is not null then
      call sheaf__fail(30016, left(concat('sheaf: shard ', p_shard, ' is taken by Galera node ', v_holder), 128));
    end if;
    set v_slot = (select min(c.slot) from (select 0 slot union all select 1 union all select 2 union all select 3
        union all select 4 union all select 5 union all select 6 union all select 7) c
      where c.slot not in (select slot from sheaf_nodes));
    if v_slot is null then
      call sheaf__fail(30002, 'sheaf: eight Galera nodes issue ids already, each from a counter of its own; no ninth');
    end if;
    set v_last_ms = sheaf__claim_own_shard(p_shard, false);
    insert into sheaf_nodes (node, shard_id, slot) values (v_node, p_shard, v_slot);
    -- Above every ticket the shared counter gave: k there was below its AUTO_INCREMENT.
    set v_first_ticket = sheaf__node_ticket(v_slot, (select auto_increment from information_schema.tables
      where table_schema = database() and table_name = 'sheaf_ticket_counter'));
  end if;
end;
