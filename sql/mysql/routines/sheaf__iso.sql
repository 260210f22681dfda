-- A unix millisecond as ISO 8601 UTC, independent of the session time zone; the number beyond the
-- years DATETIME arithmetic reaches.
create definer = current_user function {state}.sheaf__iso(p_ms bigint) returns varchar(32)
  deterministic no sql
  return case when p_ms between -62135596800000 and 253402300799999
    then concat(date_format(timestampadd(microsecond, p_ms * 1000, timestamp '1970-01-01 00:00:00'),
      '%Y-%m-%dT%H:%i:%s.'), lpad(mod(mod(p_ms, 1000) + 1000, 1000), 3, '0'), 'Z')
    else concat(p_ms, ' ms') end;
