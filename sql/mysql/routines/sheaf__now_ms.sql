-- Unix ms now, read when the statement gets to it (NOW() and UTC_TIMESTAMP() are frozen for the
-- whole statement, also across a lock wait).
create definer = current_user function {state}.sheaf__now_ms() returns bigint
  not deterministic no sql
  return floor(unix_timestamp(sysdate(3)) * 1000);
