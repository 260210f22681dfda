-- sheaf 0011 (MySQL/MariaDB): times no layout can encode are refused with sheaf's errors, naming the
-- time, in sheaf_encode_id, sheaf_id_floor and sheaf_id_ceiling (through sheaf__tick):
-- - a DATETIME in year 0 raises 30004 (before the epoch), where writing it into the message raised
--   1441 ("datetime field overflow"): the message now shows the DATETIME as given;
-- - a zero date, month or day ('0000-00-00', '2024-00-10': a DATETIME the default sql_mode accepts,
--   with no instant) raises 30002, where it returned NULL as for a NULL time.
-- sheaf__iso(ms), which writes times into messages, returns text for every BIGINT: ISO 8601 from
-- 0001-01-01 to 9999-12-31, '<ms> ms' beyond (a worker's recorded timestamp, the end of a layout
-- whose time bits outlast DATETIME), where it raised 1690 or 1441.
-- Replaced, not altered: MySQL has no `create or replace function`. Between a drop and its create a
-- statement that reaches the function fails with error 1305; sheaf_next_id() does only when it
-- refuses to issue.
-- Needs: 0001-0010 (0002: sheaf__fail). MariaDB 10.3+ or MySQL 8.0+.

drop function if exists sheaf__iso;
-- sheaf:break

-- A unix millisecond as ISO 8601 UTC, independent of the session time zone; the number beyond the
-- years DATETIME arithmetic reaches.
create function sheaf__iso(p_ms bigint) returns varchar(32)
  deterministic no sql
  return case when p_ms between -62135596800000 and 253402300799999
    then concat(date_format(timestampadd(microsecond, p_ms * 1000, timestamp '1970-01-01 00:00:00'),
      '%Y-%m-%dT%H:%i:%s.'), lpad(mod(mod(p_ms, 1000) + 1000, 1000), 3, '0'), 'Z')
    else concat(p_ms, ' ms') end;
-- sheaf:break

drop function if exists sheaf__tick;
-- sheaf:break

-- The tick (ms since the layout's epoch) of a DATETIME(3) read as UTC; refuses times the layout
-- cannot encode, naming the DATETIME as given (year 0 included, which DATETIME arithmetic does not
-- reach), and dates with no instant (timestampdiff is NULL for them).
create function sheaf__tick(p_at datetime(3)) returns bigint
  not deterministic reads sql data
begin
  declare v_epoch, v_tick, v_max bigint;
  declare v_name varchar(40);
  declare v_at varchar(32) default concat(left(date_format(p_at, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z');
  select epoch_ms, layout_name, sheaf__max_tick(time_bits, shard_bits + sequence_bits)
    into v_epoch, v_name, v_max from sheaf_settings where singleton = 1;
  set v_tick = timestampdiff(microsecond, timestamp '1970-01-01 00:00:00', p_at) div 1000 - v_epoch;
  if v_tick is null and p_at is not null then
    call sheaf__fail(30002, left(concat('sheaf: time ', cast(p_at as char), ' has a zero month or day and no instant: ',
      'pass a valid DATETIME'), 128));
  end if;
  if v_tick < 0 then
    call sheaf__fail(30004, left(concat('sheaf: time ', v_at, ' is before the epoch ', sheaf__iso(v_epoch),
      ' of layout ', v_name), 128));
  end if;
  if v_tick > v_max then
    call sheaf__fail(30003, left(concat('sheaf: time ', v_at, ' is after ', sheaf__iso(v_max + v_epoch),
      ', the end of layout ', v_name), 128));
  end if;
  return v_tick;
end;
