-- Refuses a shard outside the layout (30001) or one this database does not issue (30015). On a Galera
-- node that is every shard but the node's own (30025 when it has none): logical shards are the
-- database's, and every node has the database.
create definer = current_user procedure {state}.sheaf__check_owned_shard(in p_shard integer)
  not deterministic reads sql data
begin
  declare v_shard, v_bits integer;
  declare v_node varchar(64);
  select shard_id, shard_bits into v_shard, v_bits from sheaf_settings where singleton = 1;
  call sheaf__check_shard(p_shard, v_bits);
  if @@global.wsrep_on then
    set v_node = @@global.wsrep_node_name;
    set v_shard = (select shard_id from sheaf_nodes where node = v_node);
    if v_shard is null then
      call sheaf__fail(30025, left(concat('sheaf: Galera node ', v_node,
        ' has no shard of its own: run sheaf install --shard N on it'), 128));
    end if;
    if p_shard <> v_shard then
      call sheaf__fail(30015, left(concat('sheaf: shard ', p_shard, ' is not issued by Galera node ', v_node,
        ' (shard ', v_shard, '): each node issues its own'), 128));
    end if;
  elseif p_shard <> v_shard and not exists (select 1 from sheaf_logical_shards where shard_id = p_shard) then
    call sheaf__fail(30015, concat('sheaf: shard ', p_shard, ' is not issued by this database (shard ', v_shard,
      '); add it with sheaf_add_shard(', p_shard, ') if no other database issues it'));
  end if;
end;
