-- n ids as a result set of one `id` column, in issuing order (for ORMs and batch inserts), on the
-- configured shard or on p_shard (not null). Crash-durable in autocommit: the session's cached chunk
-- is dropped first, so the statement claims at least one chunk itself (an InnoDB write) and its
-- commit flushes the redo log up to that claim, which covers every chunk claimed before it in any
-- session. The ids reach the caller after that commit.
create definer = current_user procedure {state}.sheaf_next_shard_ids(in p_n integer, in p_shard integer)
  not deterministic modifies sql data
begin
  declare v_shard_bits, v_seq_bits integer;
  declare v_mask bigint unsigned;
  declare v_unit_mask bigint;
  if p_n is null or p_n < 1 or p_n > 1000000 then
    call sheaf__fail(30002, concat('sheaf: n must be 1 to 1000000 ids, not ', coalesce(p_n, 'null')));
  end if;
  select shard_bits, sequence_bits into v_shard_bits, v_seq_bits from sheaf_settings where singleton = 1;
  if p_shard is not null then
    call sheaf__check_owned_shard(p_shard);
  end if;
  set @sheaf_id_next = null;
  -- Keeps every field but the shard, which p_shard replaces when given.
  set v_mask = if(p_shard is null, ~0, ~(((1 << v_shard_bits) - 1) << v_seq_bits));
  set v_unit_mask = (1 << greatest(v_seq_bits - 2, 0)) - 1;
  -- Inline while the next id is inside the chunk (not the first of the next one). A statement
  -- reads a user variable it does not assign once, at its start (so not @sheaf_id_end), and types
  -- the ones it does then too, when @sheaf_id_next is NULL (text): the casts keep the arithmetic in
  -- integers once sheaf_next_id() has stored one there.
  select (if(cast(@sheaf_id_next as signed) & v_unit_mask <> 0,
        (@sheaf_id_next := cast(@sheaf_id_next as signed) + 1) - 1, sheaf_next_id()) & v_mask)
      | (coalesce(p_shard, 0) << v_seq_bits) as id
    from (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) a,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) b,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) c,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) e,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) f,
    (select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5
      union all select 6 union all select 7 union all select 8 union all select 9) g
    limit p_n;
end;
