-- sheaf_native 1.0: the bodies that sheaf.next_id() and sheaf.next_id(shard) call when sheaf runs
-- its native path. sheaf._bake() points those two functions here while this extension exists;
-- everything else (the slow path, next_ids, the state) stays sheaf's SQL (docs/native.md).
\echo Use "CREATE EXTENSION sheaf_native" to load this file. \quit

create function @extschema@._native_next_id() returns bigint
language c volatile parallel unsafe as 'MODULE_PATHNAME', 'sheaf_native_next_id';

create function @extschema@._native_next_id(shard integer) returns bigint
language c volatile parallel unsafe as 'MODULE_PATHNAME', 'sheaf_native_next_id_shard';

-- Owned by the role that created the extension, sheaf's owner (the installer refuses any other): it
-- grants them to application roles and reads sheaf's settings through them.
alter function @extschema@._native_next_id() owner to @extowner@;
alter function @extschema@._native_next_id(integer) owner to @extowner@;
revoke all on function @extschema@._native_next_id() from public;
revoke all on function @extschema@._native_next_id(integer) from public;
