-- sheaf 0014 (MySQL/MariaDB): the admin forwards of 0012 in the application's database refuse to
-- run as their definer. They run as their caller (SQL SECURITY INVOKER), but their definer is the
-- installer, and MySQL lets any account with ALTER ROUTINE on the application's database (its
-- owner: ALL on `app`.*) turn a routine there into SQL SECURITY DEFINER without changing its definer
-- or its body: `alter procedure sheaf_configure sql security definer` made it run as the installer,
-- with every right on `sheaf_<app>`, and the owner of the application's database could move the
-- shard, claim shards, create tickets and segments. ALTER changes no body, so the check sits in the
-- body: running as its definer (CURRENT_USER() is the definer) for a session that logged in under
-- another name, a forward raises 30023 and does nothing. The forwards apps call (sheaf_next_id()
-- and the others of 0012) already run as their definer, which is what they forward to.
-- Between a drop and its create a call of that forward fails with error 1305.
-- Needs: 0001-0012. MariaDB 10.3+ or MySQL 8.0+.

drop procedure if exists {app}.sheaf_configure;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_configure(in p_shard integer, in p_layout varchar(40), in p_epoch bigint, in p_time_bits integer, in p_shard_bits integer, in p_seq_bits integer, in p_test boolean)
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_configure' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_configure must run as its caller: alter procedure sheaf_configure sql security invoker';
  end if;
  call {state}.sheaf_configure(p_shard, p_layout, p_epoch, p_time_bits, p_shard_bits, p_seq_bits, p_test);
end;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_ticket;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_ticket(in p_name varchar(64), in p_step integer, in p_offset integer)
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_create_ticket' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_create_ticket must run as its caller: alter procedure sheaf_create_ticket sql security invoker';
  end if;
  call {state}.sheaf_create_ticket(p_name, p_step, p_offset);
end;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_segment(in p_biz_tag varchar(128), in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_create_segment' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_create_segment must run as its caller: alter procedure sheaf_create_segment sql security invoker';
  end if;
  call {state}.sheaf_create_segment(p_biz_tag, p_step, p_max_id, p_description);
end;
-- sheaf:break

drop procedure if exists {app}.sheaf_create_segment_class;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_create_segment_class(in p_biz_tag varchar(128), in p_delta integer, in p_remainder integer, in p_step integer, in p_max_id bigint, in p_description varchar(256))
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_create_segment_class' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_create_segment_class must run as its caller: alter procedure sheaf_create_segment_class sql security invoker';
  end if;
  call {state}.sheaf_create_segment_class(p_biz_tag, p_delta, p_remainder, p_step, p_max_id, p_description);
end;
-- sheaf:break

drop procedure if exists {app}.sheaf_add_shard;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_add_shard(in p_shard integer)
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_add_shard' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_add_shard must run as its caller: alter procedure sheaf_add_shard sql security invoker';
  end if;
  call {state}.sheaf_add_shard(p_shard);
end;
-- sheaf:break

drop procedure if exists {app}.sheaf_adopt_ticket;
-- sheaf:break

create definer = current_user procedure {app}.sheaf_adopt_ticket(in p_name varchar(64), in p_step integer, in p_offset integer, in p_above bigint, in p_headroom bigint)
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_adopt_ticket' and routine_type = 'PROCEDURE')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_adopt_ticket must run as its caller: alter procedure sheaf_adopt_ticket sql security invoker';
  end if;
  call {state}.sheaf_adopt_ticket(p_name, p_step, p_offset, p_above, p_headroom);
end;
-- sheaf:break

drop function if exists {app}.sheaf_claim_shard;
-- sheaf:break

create definer = current_user function {app}.sheaf_claim_shard(p_shard integer, p_database_id char(36), p_holder varchar(255), p_pending boolean) returns bigint
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_claim_shard' and routine_type = 'FUNCTION')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_claim_shard must run as its caller: alter function sheaf_claim_shard sql security invoker';
  end if;
  return {state}.sheaf_claim_shard(p_shard, p_database_id, p_holder, p_pending);
end;
-- sheaf:break

drop function if exists {app}.sheaf_release_shard;
-- sheaf:break

create definer = current_user function {app}.sheaf_release_shard(p_shard integer, p_database_id char(36), p_last_ms bigint) returns boolean
  not deterministic modifies sql data sql security invoker
begin
  if current_user() = (select definer from information_schema.routines
      where routine_schema = database() and routine_name = 'sheaf_release_shard' and routine_type = 'FUNCTION')
    and substring_index(current_user(), '@', 1) <> substring_index(user(), '@', 1) then
    signal sqlstate '45000' set mysql_errno = 30023, message_text =
      'sheaf: sheaf_release_shard must run as its caller: alter function sheaf_release_shard sql security invoker';
  end if;
  return {state}.sheaf_release_shard(p_shard, p_database_id, p_last_ms);
end;
