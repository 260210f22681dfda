-- Fills the {placeholders} of a function template with the settings' constants.
create or replace function sheaf._render(template text, s sheaf.settings) returns text
language plpgsql immutable as $$
declare
  max_tick bigint := least(
    case when s.time_bits >= 63 then 9223372036854775807 else (1::bigint << s.time_bits) - 1 end,
    9223372036854775807 >> (s.shard_bits + s.sequence_bits));
  -- "Milliseconds since the epoch, now". A test install reads a placeholder clock instead
  -- (`sheaf.clock_ms` absolute, `sheaf.clock_offset_ms` added); `nullif` because a setting reads
  -- '' rather than NULL once a `set local` has ended.
  clock text := case when s.test_clock then
      '(coalesce(nullif(current_setting(''sheaf.clock_ms'', true), '''')::bigint, '
      'floor(date_part(''epoch'', clock_timestamp()) * 1000)::bigint) + '
      'coalesce(nullif(current_setting(''sheaf.clock_offset_ms'', true), '''')::bigint, 0) - {epoch_ms})'
    else '(floor(date_part(''epoch'', clock_timestamp()) * 1000)::bigint - {epoch_ms})' end;
  -- Now as a timestamp (a test install's clock as {clock}), and the end of the millisecond of the
  -- counter value t: the fast path compares the two without turning the clock into a tick.
  clock_at text := case when s.test_clock then
      '(coalesce(timestamptz ''epoch'' + nullif(current_setting(''sheaf.clock_ms'', true), '''')::bigint '
      '* interval ''1 ms'', clock_timestamp()) + coalesce(nullif(current_setting(''sheaf.clock_offset_ms'', true), '
      ''''')::bigint, 0) * interval ''1 ms'')'
    else 'clock_timestamp()' end;
  tick_end text := format('%L::timestamptz + (t >> {time_shift}) * interval ''1 ms''',
    to_char((timestamptz 'epoch' + (s.epoch_ms + 1) * interval '1 ms') at time zone 'UTC',
      'YYYY-MM-DD HH24:MI:SS.US') || '+00');
  result text := replace(replace(replace(replace(template, '{clock_at}', clock_at), '{tick_end}', tick_end),
    '{shard_mask}', ((((1::bigint << s.shard_bits) - 1) << s.sequence_bits))::text), '{clock}', clock);
begin
  -- A test install can hold the slow path inside its lock, to prove a cancel there leaks nothing.
  result := replace(result, '{test_pause}', case when s.test_clock then 'perform sheaf._test_pause();' else '' end);
  result := replace(result, '{check_shard}', 'if shard is null or shard < 0 or shard > {max_shard} then
        perform sheaf._fail(''SH001'', format(''shard %s does not fit {shard_bits} shard bits (max {max_shard})'',
          coalesce(shard::text, ''null'')));
      end if;');
  result := replace(result, '{shard_field}', (s.shard_id::bigint << s.sequence_bits)::text);
  result := replace(result, '{shard_clear}', (~(((1::bigint << s.shard_bits) - 1) << s.sequence_bits))::text);
  result := replace(result, '{block_size}', (1::bigint << s.sequence_bits)::text);
  result := replace(result, '{shard}', s.shard_id::text);
  result := replace(result, '{shard_bits}', s.shard_bits::text);
  result := replace(result, '{max_shard}', ((1 << s.shard_bits) - 1)::text);
  result := replace(result, '{seq_bits}', s.sequence_bits::text);
  result := replace(result, '{seq_mask}', ((1::bigint << s.sequence_bits) - 1)::text);
  result := replace(result, '{half_block}', (1::bigint << (s.sequence_bits - 1))::text);
  result := replace(result, '{time_shift}', (s.shard_bits + s.sequence_bits)::text);
  result := replace(result, '{low_mask}', ((1::bigint << (s.shard_bits + s.sequence_bits)) - 1)::text);
  result := replace(result, '{max_tick}', max_tick::text);
  result := replace(result, '{max_id}', ((max_tick << (s.shard_bits + s.sequence_bits))
    | ((1::bigint << (s.shard_bits + s.sequence_bits)) - 1))::text);
  result := replace(result, '{run_out}', sheaf._iso(s.epoch_ms + max_tick));
  result := replace(result, '{epoch_iso}', sheaf._iso(s.epoch_ms));
  result := replace(result, '{epoch_ms}', s.epoch_ms::text);
  result := replace(result, '{layout}', s.layout_name);
  -- The generator's session-level advisory lock: 'sheaf' as bytes, and how pg_locks shows it.
  result := replace(result, '{lock_classid}', (495672713574 >> 32)::text);
  result := replace(result, '{lock_objid}', (495672713574 & 4294967295)::text);
  return replace(result, '{lock_key}', '495672713574');
end
$$;
