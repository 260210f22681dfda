-- Records, from the installer, that this database's shards are registered in `p_registry` (a
-- description of the registry database); NULL makes this database its own registry again.
create definer = current_user procedure {state}.sheaf__use_registry(in p_registry varchar(255))
  not deterministic modifies sql data sql security invoker
  update sheaf_settings set registry = p_registry where singleton = 1;
