-- Raises a sheaf error: SIGNAL SQLSTATE '45000', MYSQL_ERRNO 30000 + n for SQLSTATE SHnnn of
-- sql-errors.ts, 'sheaf: …'; messages stay under MESSAGE_TEXT's 128 characters.
create definer = current_user procedure {state}.sheaf__fail(in p_errno integer, in p_message varchar(128))
  no sql
begin
  signal sqlstate '45000' set message_text = p_message, mysql_errno = p_errno;
end;
