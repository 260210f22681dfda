select sheaf._bake();
