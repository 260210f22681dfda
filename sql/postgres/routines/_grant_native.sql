-- An inlined body is checked as the caller: whoever may call next_id() may call the function it
-- runs, PL/pgSQL or C. Called by _bake() and after every `sheaf grant`.
create or replace function sheaf._grant_native() returns void
language plpgsql as $$
declare
  grantee regrole;
  bodies text := 'sheaf._plpgsql_next_id(), sheaf._plpgsql_next_id(integer)';
begin
  if to_regprocedure('sheaf._plpgsql_next_id()') is null then
    return;
  end if;
  if to_regprocedure('sheaf._native_next_id()') is not null then
    bodies := bodies || ', sheaf._native_next_id(), sheaf._native_next_id(integer)';
  end if;
  execute format('revoke all on function %s from public', bodies);
  for grantee in
    select a.grantee::regrole from pg_proc p cross join lateral aclexplode(p.proacl) a
    where p.oid = 'sheaf.next_id()'::regprocedure and a.privilege_type = 'EXECUTE'
      and a.grantee <> p.proowner and a.grantee <> 0
  loop
    execute format('grant execute on function %s to %s', bodies, grantee);
  end loop;
end
$$;
