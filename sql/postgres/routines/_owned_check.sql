-- The check that a shard given to next_id(shard) / next_ids(n, shard) is one this database issues.
create or replace function sheaf._owned_check(s sheaf.settings, logical integer[]) returns text
language sql immutable as $$
  select format('if shard <> %s%s then
        perform sheaf._fail(''SH015'', format(''shard %%s is not issued by this database (shard %s%s); '
      'add it with sheaf.add_shard(%%s) if no other database issues it'', shard, shard));
      end if;', s.shard_id,
    case when cardinality(logical) > 0 then format(' and shard <> all (%L::integer[])', logical) else '' end,
    s.shard_id,
    case when cardinality(logical) > 0 then ', logical shards ' || array_to_string(logical, ', ') else '' end)
$$;
