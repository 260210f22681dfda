-- sheaf 0015: times no layout can encode are refused with sheaf's errors, naming the time:
-- - encode_id, id_floor and id_ceiling of 'infinity' raise SH003 (after the layout's last instant)
--   and of '-infinity' SH004 (before its epoch); turning them into a tick raised 0A000 ("cannot
--   convert infinity to bigint");
-- - sheaf._iso(ms), which writes times into messages, returns text for every bigint: ISO 8601 as
--   JavaScript's toISOString writes it (4-digit years, else a sign and 6 digits) within PostgreSQL's
--   timestamps, '<ms> ms' beyond. It raised 22008 ("interval out of range") for a time far in the
--   future (id_floor('20000-01-01') failed while naming it in SH003), and for the end of a layout
--   whose time bits outlast PostgreSQL's timestamps, which configure() writes into the functions.
-- sheaf._bake() becomes the 0014 version (renamed _bake_0014) followed by _tick's new template.
-- next_id() is unchanged.
-- Needs: 0001-0014. PostgreSQL 13+ (or PGlite); no superuser, no extension.

-- Years 0 to 9999 as 4 digits and the others as a sign and 6 digits, as toISOString; astronomical
-- years (1 BC is year 0), where PostgreSQL counts 1 BC as -1. Days and milliseconds apart: the
-- microseconds of an interval overflow before the last timestamp, and a timestamp without time zone
-- adds days of 24 hours whatever the session's zone.
create or replace function sheaf._iso(ms bigint) returns text
language sql immutable as $$
  select case
    when ms is null then null
    -- 4714-11-24 BC and 294276-12-31 23:59:59.999: PostgreSQL's first and last timestamps.
    when ms < -210866803200000 or ms > 9224318015999999 then ms || ' ms'
    else (
      select case
          when y between 0 and 9999 then lpad(y::text, 4, '0')
          when y < 0 then '-' || lpad((-y)::text, 6, '0')
          else '+' || lpad(y::text, 6, '0') end
        || to_char(t, '-MM-DD"T"HH24:MI:SS.MS"Z"')
      from (select t, extract(year from t)::integer + case when extract(year from t) < 0 then 1 else 0 end as y
        from (select timestamp 'epoch' + (ms / 86400000) * interval '1 day' + (ms % 86400000) * interval '1 ms' as t)
          utc) parts)
  end
$$;
-- sheaf:break

alter function sheaf._bake() rename to _bake_0014;
-- sheaf:break

create function sheaf._bake() returns void
language plpgsql as $bake$
declare
  s sheaf.settings := (select t from sheaf.settings t);
begin
  perform sheaf._bake_0014();
  -- The tick (ms since the epoch) of a time the layout can encode. 'infinity' and '-infinity' have
  -- none (tick stays null) and are named as PostgreSQL writes them.
  execute sheaf._render($f$
    create or replace function sheaf._tick(at timestamptz) returns bigint
    language plpgsql immutable strict as $body$
    declare
      tick bigint := case when isfinite(at) then floor(extract(epoch from at) * 1000)::bigint - {epoch_ms} end;
    begin
      if tick < 0 or at = '-infinity' then
        perform sheaf._fail('SH004', format('time %s is before the epoch {epoch_iso} of layout {layout}',
          coalesce(sheaf._iso(tick + {epoch_ms}), at::text)));
      end if;
      if tick > {max_tick} or at = 'infinity' then
        perform sheaf._fail('SH003', format('time %s is after {run_out}, the last instant layout {layout} can encode',
          coalesce(sheaf._iso(tick + {epoch_ms}), at::text)));
      end if;
      return tick;
    end
    $body$
  $f$, s);
end
$bake$;
-- sheaf:break

select sheaf._bake();
