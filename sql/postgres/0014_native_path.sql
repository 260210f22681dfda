-- sheaf 0014: the native path (docs/native.md). Where the extension sheaf_native is installed and
-- chosen (sheaf.settings.native), sheaf._bake() makes next_id() and next_id(shard) call its C
-- functions; otherwise their PL/pgSQL bodies, sheaf._plpgsql_next_id(). Both versions read and move
-- the same two sequences by the same rule and share the slow path (sheaf._next_block()), so a
-- database moves between them in either direction, in one transaction, while other sessions take
-- ids, with no duplicate and no failed statement.
-- Needs: 0001-0013. The native path needs PostgreSQL 14+ and the extension built for the server;
-- without them (PGlite, most managed servers) nothing changes.

-- The path chosen: null until an install chooses (it then takes native where it can).
alter table sheaf.settings add column native boolean;
-- sheaf:break

alter function sheaf._bake() rename to _bake_plpgsql;
-- sheaf:break

-- An inlined body is checked as the caller: whoever may call next_id() may call the function it
-- runs, PL/pgSQL or C. Called by _bake() and after every `sheaf grant`.
create function sheaf._grant_native() returns void
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
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  native boolean := coalesce((select s.native from sheaf.settings s), false);
begin
  perform sheaf._bake_plpgsql();
  -- next_id() and next_id(shard) are language sql on both paths, one call that the caller's query
  -- inlines; the PL/pgSQL bodies move to _plpgsql_next_id. A function whose language changed while a
  -- statement was calling it had PL/pgSQL compile the new SQL body in that statement (syntax error).
  execute replace(pg_get_functiondef('sheaf.next_id()'::regprocedure),
    'FUNCTION sheaf.next_id()', 'FUNCTION sheaf._plpgsql_next_id()');
  execute replace(pg_get_functiondef('sheaf.next_id(integer)'::regprocedure),
    'FUNCTION sheaf.next_id(shard integer)', 'FUNCTION sheaf._plpgsql_next_id(shard integer)');
  if native and to_regprocedure('sheaf._native_next_id()') is null then
    perform sheaf._fail('SH022', 'the native path is chosen but the extension sheaf_native is not installed: '
      'create it (sheaf install --native) or choose PL/pgSQL (sheaf install --no-native)');
  end if;
  if native then
    -- A BEGIN ATOMIC body records its dependency, so the extension cannot be dropped while
    -- next_id() calls it.
    execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
      begin atomic select sheaf._native_next_id(); end';
    execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
      begin atomic select sheaf._native_next_id(shard); end';
  else
    -- A quoted body: PostgreSQL 13 has no BEGIN ATOMIC.
    execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
      as ''select sheaf._plpgsql_next_id()''';
    execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
      as ''select sheaf._plpgsql_next_id(shard)''';
  end if;
  perform sheaf._grant_native();
end
$bake$;
-- sheaf:break

select sheaf._bake();
