-- Puts back what the generator needs when something removed it (a schema copied without its
-- sequences' values, a dropped sequence, a deleted row): the lock's secret and epoch, the
-- generator's sequences (never called: the next block is rebased above the counter and the clock),
-- an unlogged live block, and a settings row bound to this node, which install() then configures
-- with the shard it was given. Called by install(), before configure.
create or replace function sheaf._repair() returns void
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  name text := current_database() || coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '');
  persistence text := case when current_setting('server_version_num')::integer >= 150000 then 'unlogged' else '' end;
begin
  if not exists (select from sheaf.lock_secret) then
    insert into sheaf.lock_secret (secret, legacy_until)
    values (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), '-infinity');
  end if;
  if pg_sequence_last_value('sheaf.lock_epoch') is null then
    perform setval('sheaf.lock_epoch', 0);
  end if;
  if to_regclass('sheaf.counter') is null then
    create sequence sheaf.counter as bigint minvalue 0 start 0 cache 1;
  end if;
  if to_regclass('sheaf.block') is null then
    create sequence sheaf.block as bigint minvalue -1 start -1 cache 1;
  end if;
  if to_regclass('sheaf.opened_at') is null then
    create sequence sheaf.opened_at as bigint minvalue -9223372036854775808 cache 1;
  end if;
  if to_regclass('sheaf.step_allowance') is null then
    create sequence sheaf.step_allowance as bigint minvalue 0 start 0 cache 1;
  end if;
  if to_regclass('sheaf.live_block') is null then
    execute format('create %s sequence sheaf.live_block as bigint minvalue -1 start -1 cache 1', persistence);
  end if;
  -- Installed before the server was upgraded to PostgreSQL 15 (pg_upgrade keeps relations as they
  -- are): make the live block unlogged. ALTER writes the value it finds as the one a crash resets
  -- to, so it must find never-called; the fast path meanwhile goes to the slow path, which rebases.
  if persistence = 'unlogged'
    and (select c.relpersistence from pg_class c where c.oid = 'sheaf.live_block'::regclass) = 'p' then
    perform setval('sheaf.live_block', -1, false);
    alter sequence sheaf.live_block set unlogged;
  end if;
  if not exists (select from sheaf.settings) then
    -- The database_id its own id space knows it by, if it claimed shards there under this name.
    insert into sheaf.settings (database_id, database_name, node_identity)
    values (coalesce((select w.database_id from sheaf.workers w where w.kind = 'database' and w.holder = name
        order by w.worker_id limit 1), gen_random_uuid()), name, sheaf.node_identity());
  end if;
end
$$;
