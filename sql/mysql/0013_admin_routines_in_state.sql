-- sheaf 0013 (MySQL/MariaDB): the routines only admins call live in `sheaf_<app>` alone. 0012 left
-- forwards of them in the application's database, running as their caller: there an account with
-- ALTER ROUTINE on `app`.* (the database's owner) could make one run as its definer, the installer
-- (`alter procedure sheaf_configure sql security definer`: the shard moved), or drop it and create
-- its own under that name, which an admin or an installer calling `sheaf_configure` would then run
-- with the admin's rights. Admins and sheaf's tools call `sheaf_<app>`.sheaf_configure(…) and the
-- others directly, where no grant on the application's database reaches. The forwards that
-- applications call run as their definer and stay.
-- Needs: 0012. MariaDB 10.3+ or MySQL 8.0+.

drop procedure if exists {app}.sheaf_configure;
-- sheaf:break

drop procedure if exists {app}.sheaf_add_shard;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_ticket;
-- sheaf:break

drop procedure if exists {app}.sheaf_adopt_ticket;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment_class;
-- sheaf:break

drop function if exists {app}.sheaf_claim_shard;
-- sheaf:break

drop function if exists {app}.sheaf_release_shard;
