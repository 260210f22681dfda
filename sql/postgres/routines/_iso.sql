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
