-- The tick (ms since the layout's epoch) of a DATETIME(3) read as UTC; refuses times the layout
-- cannot encode, naming the DATETIME as given (year 0 included, which DATETIME arithmetic does not
-- reach), and dates with no instant (timestampdiff is NULL for them).
create definer = current_user function {state}.sheaf__tick(p_at datetime(3)) returns bigint
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
