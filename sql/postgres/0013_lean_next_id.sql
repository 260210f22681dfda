-- sheaf 0013: a leaner next_id(). Same state, same test, same proof (docs/sql/postgres.md):
-- - the fast path compares the clock with the end of t's millisecond as timestamps
--   (clock_timestamp() < epoch + (tick(t) + 1) ms) instead of turning the clock into a tick with
--   date_part('epoch', …), whose unit name is parsed on every call: the same test, exact to the
--   microsecond, and the costliest part of the fast path before;
-- - a session that waited in the slow path for the lock and found the key stale (its holder has
--   opened a block and moved the epoch) tries the fast path again before it takes the next key:
--   sessions that cross a millisecond together take from the block the first one opens instead of
--   each taking the lock and moving the epoch in turn.
-- sheaf._bake() becomes the 0012 version (renamed _bake_0012) with these changes patched into what
-- it created.
-- Needs: 0001-0012. PostgreSQL 13+ (or PGlite); no superuser, no extension.

-- {clock_at}: now, as a timestamp (a test install's frozen or offset clock as _render's {clock});
-- {tick_end}: the end of the millisecond of the counter value t.
create function sheaf._render_0013(template text, s sheaf.settings) returns text
language sql immutable as $$
  select sheaf._render_0008(replace(replace(template,
    '{clock_at}', case when s.test_clock then
        '(coalesce(timestamptz ''epoch'' + nullif(current_setting(''sheaf.clock_ms'', true), '''')::bigint '
        '* interval ''1 ms'', clock_timestamp()) + coalesce(nullif(current_setting(''sheaf.clock_offset_ms'', true), '
        ''''')::bigint, 0) * interval ''1 ms'')'
      else 'clock_timestamp()' end),
    '{tick_end}', format('%L::timestamptz + (t >> {time_shift}) * interval ''1 ms''',
      to_char((timestamptz 'epoch' + (s.epoch_ms + 1) * interval '1 ms') at time zone 'UTC',
        'YYYY-MM-DD HH24:MI:SS.US') || '+00')), s)
$$;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0012;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
  -- The test of 0008, as it rendered it, and the same test with the clock as a timestamp. The
  -- shard check before the clock: a value of another shard fails without a clock read.
  was text := sheaf._render_0008('t <= u and t >> {time_shift} >= {clock} and (t & {shard_mask}) = {shard_field}', s);
  fresh text := sheaf._render_0013('t <= u and (t & {shard_mask}) = {shard_field} and {clock_at} < {tick_end}', s);
  f regprocedure;
  old text;
  patched text;
  retry text;
begin
  perform sheaf._bake_0012();
  foreach f in array array['sheaf.next_id()', 'sheaf.next_id(integer)', 'sheaf._next_block()',
    'sheaf._open_block(integer)']::regprocedure[] loop
    old := pg_get_functiondef(f);
    patched := old;
    if f in ('sheaf._next_block()'::regprocedure, 'sheaf._open_block(integer)'::regprocedure) then
      -- 0008's retry, which a session runs when it finds the key taken, runs again once it has
      -- waited for the key and found it stale: its holder has published a block by then.
      retry := substring(old from
        '\n\s*if n = 1 then\s+u := [^\n]+\n\s+t := [^\n]+\n\s+if [^\n]+ then\s+return t;\s+end if;\s+end if;');
      patched := regexp_replace(old, '(the key it holds now is stale\.\s+perform pg_advisory_unlock\(lock_id\);)',
        '\1' || retry);
      if retry is null or patched = old then
        raise exception 'sheaf 0013: the slow path % does not have the shape 0008 gave it', f;
      end if;
    end if;
    patched := replace(patched, was, fresh);
    if position(was in patched) > 0 or position(fresh in patched) = 0 then
      raise exception 'sheaf 0013: % has no fast-path test to patch', f;
    end if;
    execute patched;
  end loop;
end
$bake$;
-- sheaf:break

select sheaf._bake();
-- sheaf:break

revoke all on all functions in schema sheaf from public;
