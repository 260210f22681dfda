-- sheaf 0018: one current definition for every routine (sql/postgres/routines/). sheaf._bake()
-- renders each routine that holds the layout's constants directly from its current template, where
-- it was a chain of earlier versions (_bake_0003 ... _bake_0016, _bake_plpgsql), each calling the one
-- before and patching what it had created, with _render_0008 and _render_0013 adding placeholders.
-- The chain is dropped, and _next_id_entry() with it (_bake() chooses next_id()'s entry points
-- itself); _render() fills every placeholder. What the routines do is unchanged: every
-- routine _bake() creates is the same, character for character, as the chain created it.
-- Written by scripts/sql-version.mjs from steps/0018_head.sql, routines/_render.sql,
-- routines/_bake.sql and steps/0018_tail.sql.
-- Needs: 0001-0017. PostgreSQL 13+ (or PGlite); no superuser, no extension.

drop function sheaf._bake_0003();
-- sheaf:break

drop function sheaf._bake_0007();
-- sheaf:break

drop function sheaf._bake_0008();
-- sheaf:break

drop function sheaf._bake_0012();
-- sheaf:break

drop function sheaf._bake_plpgsql();
-- sheaf:break

drop function sheaf._bake_0014();
-- sheaf:break

drop function sheaf._bake_0015();
-- sheaf:break

drop function sheaf._bake_0016();
-- sheaf:break

drop function sheaf._next_id_entry();
-- sheaf:break

drop function sheaf._render_0013(text, sheaf.settings);
-- sheaf:break

drop function sheaf._render_0008(text, sheaf.settings);
