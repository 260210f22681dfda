-- sheaf 0004 (MySQL/MariaDB): sheaf_configure no longer forgets that ids were issued.
-- Needs: 0001, 0002. MariaDB 10.3+ or MySQL 8.0+.
-- 0002's version took a new probe on every call, so re-running install() with the same layout (an
-- app upgrading at start-up) reset the "ids were issued" mark and a later call could change the
-- layout under ids already issued. The probe now moves only when the layout changes, which is only
-- allowed while no id was issued; the shard may change at any time.

-- Replaced, not altered: MySQL has no `create or replace procedure`. Only install() calls it, under
-- the install lock.
drop procedure if exists sheaf_configure;
-- sheaf:break

-- Sets the shard, and the layout until the first id was issued. A layout change takes one counter
-- value as a probe: a counter above the previous probe means ids were issued since.
create procedure sheaf_configure(in p_shard integer, in p_layout varchar(40), in p_epoch bigint,
  in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data
begin
  declare v_k bigint;
  declare v_layout_changes, v_issued boolean;
  if p_layout is null or not (p_layout regexp '^[a-z0-9_-]{1,40}$')
      or cast(p_layout as binary) <> cast(lower(p_layout) as binary) then
    call sheaf__fail(30008, concat('sheaf: layout name ', coalesce(quote(p_layout), 'null'),
      ' must be 1 to 40 of a-z, 0-9, _ and -'));
  end if;
  if p_time_bits is null or p_shard_bits is null or p_seq_bits is null or p_epoch is null or p_time_bits < 1
      or p_seq_bits < 1 or p_shard_bits < 0 or p_time_bits + p_shard_bits + p_seq_bits > 64 or p_epoch < 0 then
    call sheaf__fail(30008, concat('sheaf: layout ', p_layout, ' is invalid: epoch ', coalesce(p_epoch, 'null'), ', ',
      coalesce(p_time_bits, 'null'), '+', coalesce(p_shard_bits, 'null'), '+', coalesce(p_seq_bits, 'null'), ' bits'));
  end if;
  call sheaf__check_shard(p_shard, p_shard_bits);
  select (epoch_ms, time_bits, shard_bits, sequence_bits) <> (p_epoch, p_time_bits, p_shard_bits, p_seq_bits)
    into v_layout_changes from sheaf_settings where singleton = 1;
  if v_layout_changes then
    insert into sheaf_chunks (k) values (null);
    set v_k = last_insert_id();
    delete from sheaf_chunks where k = v_k and s = 0;
    select v_k > probe_k + 1 into v_issued from sheaf_settings where singleton = 1;
    if v_issued then
      call sheaf__fail(30005, concat('sheaf: cannot change layout ', (select layout_name from sheaf_settings),
        ' to ', p_layout, ': ids were already issued with it'));
    end if;
    update sheaf_settings set probe_k = v_k where singleton = 1;
  end if;
  update sheaf_settings set shard_id = p_shard, layout_name = p_layout, epoch_ms = p_epoch, time_bits = p_time_bits,
    shard_bits = p_shard_bits, sequence_bits = p_seq_bits, test_clock = coalesce(p_test, false),
    configured_at = current_timestamp(3)
    where singleton = 1;
  -- This session's cached chunk belongs to the old shard.
  set @sheaf_id_next = null;
end;
