-- Claims a shard for this database. One registered elsewhere takes a new shard only when its
-- installer registered it there first and says so in the transaction (set local
-- sheaf.registered_shard = 'N'); one it holds already needs nothing.
create or replace function sheaf._claim_own_shard(shard_id integer) returns void
language plpgsql volatile as $$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  if exists (select from sheaf.workers w where w.worker_id = _claim_own_shard.shard_id and w.kind = 'database'
    and w.database_id = s.database_id and w.expires_at is null) then
    return;
  end if;
  if s.registry is not null and current_setting('sheaf.registered_shard', true) is distinct from shard_id::text then
    perform sheaf._fail('SH017', format('the shards of this database are registered in %s: register shard %s '
      'there first (install with its registry), then take it here', s.registry, shard_id));
  end if;
  perform sheaf.claim_shard(shard_id, s.database_id, s.database_name);
end
$$;
