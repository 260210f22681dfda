-- The node this database runs on: '<system_identifier>/<database oid>'. A promoted physical standby
-- is the same node; a copy of the database is not. pg_control_system() is executable by every role;
-- where a service hides it, the database's oid alone is left.
create or replace function sheaf.node_identity() returns text
language sql stable set search_path = pg_catalog, pg_temp as $$
  select coalesce(case when has_function_privilege('pg_catalog.pg_control_system()', 'execute')
      then (select c.system_identifier::text from pg_control_system() c) end, 'unknown')
    || '/' || (select d.oid::text from pg_database d where d.datname = current_database())
$$;
