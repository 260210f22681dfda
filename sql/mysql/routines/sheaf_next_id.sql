-- The snowflake for the configured shard: the session's cached id when the settings row (read in
-- this call) and the clock vouch for it, with the shard field checked against the node's own shard
-- on a Galera node (so a chunk of another node's shard, or one cached before this node was bound, is
-- never taken); otherwise a new chunk (sheaf__claim_chunk). Off Galera the IF reads no sheaf_nodes row.
create definer = current_user function {state}.sheaf_next_id() returns bigint
  not deterministic modifies sql data
begin
  if @sheaf_id_next between 1 and 9223372036854775807 and @sheaf_id_db = substring(database(), 7) then
    return coalesce((select if(@sheaf_id_next & ((1 << greatest(sequence_bits - 2, 0)) - 1) <> 0
        and (@sheaf_id_next >> sequence_bits) & ((1 << shard_bits) - 1) = if(@@global.wsrep_on,
          (select n.shard_id from sheaf_nodes n where n.node = @@global.wsrep_node_name), shard_id)
        and @sheaf_id_next >> (shard_bits + sequence_bits)
          between floor(unix_timestamp(sysdate(3)) * 1000) - epoch_ms and (1 << time_bits) - 1
        and (@sheaf_id_end := (@sheaf_id_next | ((1 << greatest(sequence_bits - 2, 0)) - 1)) + 1) > 0
        and (@sheaf_id_stmt := @@timestamp) is not null,
        (@sheaf_id_next := @sheaf_id_next + 1) - 1, null)
      from sheaf_settings where singleton = 1), sheaf__claim_chunk());
  end if;
  return sheaf__claim_chunk();
end;
