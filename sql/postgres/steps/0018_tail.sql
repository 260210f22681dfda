select sheaf._bake();
-- sheaf:break

revoke all on all functions in schema sheaf from public;
