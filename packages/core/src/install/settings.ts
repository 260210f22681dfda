import type { Layout } from '../layout.js';
import { layoutByName, type PresetName } from '../presets.js';
import { configureParams } from './dialect-install.js';

/** The settings row as `DialectInstall.settings` reads it. */
export interface SettingsRow {
  readonly shard_id: unknown;
  readonly layout_name: unknown;
  readonly epoch_ms: unknown;
  readonly time_bits: unknown;
  readonly shard_bits: unknown;
  readonly sequence_bits: unknown;
  readonly test_clock: unknown;
}

interface Requested {
  readonly shard?: number | undefined;
  readonly layout?: Layout | PresetName | undefined;
  readonly testClock?: boolean | undefined;
}

/**
 * The `configure` parameters: each option given, else what the database has. An app that calls
 * `install()` at start-up to upgrade must not move its database back to shard 0, where it would
 * issue the ids of another shard's database. A fresh install's row holds the defaults (shard 0,
 * layout sheaf).
 */
export function configureWith(current: SettingsRow | undefined, requested: Requested): unknown[] {
  const fallback = configureParams(0, layoutByName('sheaf'), false);
  const kept = current === undefined ? fallback : fromRow(current);
  const layout = typeof requested.layout === 'string' ? layoutByName(requested.layout) : requested.layout;
  const layoutParams = layout === undefined ? kept.slice(1, 6) : configureParams(0, layout, false).slice(1, 6);
  return [requested.shard ?? kept[0], ...layoutParams, requested.testClock ?? kept[6]];
}

function fromRow(row: SettingsRow): unknown[] {
  const on = row.test_clock === true || Number(row.test_clock) === 1;
  return [
    Number(row.shard_id),
    String(row.layout_name),
    Number(row.epoch_ms),
    Number(row.time_bits),
    Number(row.shard_bits),
    Number(row.sequence_bits),
    on,
  ];
}
