-- sheaf 0017: cheaper entry points (docs/native.md).
-- - On the native path, next_id() and next_id(shard) are the C functions themselves. A language sql
--   wrapper is inlined into every statement that calls it, which costs each unprepared statement a
--   look-up and a copy of the wrapper's body while it is planned; a C function costs the planner no
--   more than nextval() does. Creating a C function needs a superuser, as creating the extension
--   does: a database whose native path was taken otherwise (while the extension was trusted) keeps
--   the wrappers.
-- - On the PL/pgSQL path (PostgreSQL 14+, PGlite), the wrappers are BEGIN ATOMIC bodies, stored
--   parsed: inlining one no longer parses and analyses its text for every statement.
-- Only a function's language between sql and c changes, never to or from PL/pgSQL: a statement
-- running when it changes keeps the body it inlined or the C function it called.
-- Needs: 0001-0016; the C entry points need PostgreSQL 14+ with the extension sheaf_native.

create function sheaf._next_id_entry() returns void
language plpgsql as $$
declare
  native boolean := coalesce((select s.native from sheaf.settings s), false);
begin
  if native and to_regprocedure('sheaf._native_next_id()') is not null
    and (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    create or replace function sheaf.next_id() returns bigint
    language c volatile as '$libdir/sheaf_native', 'sheaf_native_next_id';
    create or replace function sheaf.next_id(shard integer) returns bigint
    language c volatile as '$libdir/sheaf_native', 'sheaf_native_next_id_shard';
    -- Never called: its body records a dependency on the extension's functions, so the extension
    -- cannot be dropped while the native path is chosen, as the wrappers' bodies did before.
    execute 'create or replace function sheaf._native_anchor() returns bigint language sql volatile
      begin atomic select sheaf._native_next_id() + sheaf._native_next_id(0); end';
    revoke all on function sheaf._native_anchor() from public;
    return;
  end if;
  drop function if exists sheaf._native_anchor();
  if not native and current_setting('server_version_num')::integer >= 140000 then
    execute 'create or replace function sheaf.next_id() returns bigint language sql volatile
      begin atomic select sheaf._plpgsql_next_id(); end';
    execute 'create or replace function sheaf.next_id(shard integer) returns bigint language sql volatile
      begin atomic select sheaf._plpgsql_next_id(shard); end';
  end if;
end
$$;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0016;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $$
begin
  perform sheaf._bake_0016();
  perform sheaf._next_id_entry();
end
$$;
-- sheaf:break

select sheaf._bake();
-- sheaf:break

revoke all on all functions in schema sheaf from public;
