-- Binds this database to the node it runs on. `new_database`: it is a copy (or a physical clone,
-- which no check can tell from its original) and becomes a database of its own: a new database_id
-- (registries see another database), and neither the original's logical shards nor its registry
-- record, which are the original's; the caller then configures a shard. Otherwise the database was
-- moved here and the original will never issue ids again: its live block is reset, so the next
-- block starts above anything the original could have issued after this copy was taken, as after a
-- crash. Owner only.
create or replace function sheaf.bind_node(new_database boolean) returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
begin
  if new_database is null then
    perform sheaf._fail('SH002', 'bind_node needs new_database true (a copy with a shard of its own) or false '
      '(the database was moved), not null');
  end if;
  if new_database then
    delete from sheaf.logical_shards;
    update sheaf.settings set database_id = gen_random_uuid(), registry = null,
      database_name = current_database()
        || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '');
  else
    perform setval('sheaf.live_block', -1, false);
  end if;
  update sheaf.settings set node_identity = sheaf.node_identity();
end
$$;
