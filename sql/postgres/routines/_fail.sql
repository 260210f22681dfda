-- Raises a sheaf error: `code` is a SQLSTATE of class SH that @sheaf/core maps to a SheafError code.
create or replace function sheaf._fail(code text, message text) returns void
language plpgsql as $$
begin
  raise exception using errcode = code, message = 'sheaf: ' || message;
end
$$;
