-- Refuses a lease in a database registered elsewhere (30017), and arguments a lease cannot take.
create definer = current_user procedure {state}.sheaf__check_lease_args(in p_holder varchar(255), in p_lease_ms integer)
  not deterministic reads sql data
begin
  declare v_registry varchar(255);
  select registry into v_registry from sheaf_settings where singleton = 1;
  if v_registry is not null then
    call sheaf__fail(30017, left(concat('sheaf: worker ids are leased from the registry of this database''s ',
      'shards, not here: ', v_registry), 128));
  end if;
  if p_holder is null or p_holder = '' then
    call sheaf__fail(30002, concat('sheaf: worker holder must be non-empty text, not ',
      coalesce(quote(p_holder), 'null')));
  end if;
  if p_lease_ms is null or p_lease_ms < 1 then
    call sheaf__fail(30002, concat('sheaf: lease_ms must be at least 1, not ', coalesce(p_lease_ms, 'null')));
  end if;
end;
