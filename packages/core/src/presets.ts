import { SheafError } from './errors.js';
import { formatValue, jsonSafe } from './format.js';
import { createLayout, type Layout } from './layout.js';
import { checkLayout } from './layout-check.js';

/**
 * The built-in layouts (docs/layout.md):
 * - `sheaf` (default): epoch 2024-01-01, 41 time · 12 shard · 10 sequence bits, lasts to 2093.
 * - `instagram`: Instagram's 2011 function, 41 · 13 · 10; its 64 bits leave no room for the sign bit,
 *   so it stops in 2046 where the sign bit would be needed.
 * - `twitter`: Twitter's snowflake epoch, 41 · 10 (worker id) · 12.
 * - `js53`: epoch 2024-01-01, 41 · 4 · 8, every id ≤ 2^53 − 1, safe as a JavaScript number and in JSON.
 *
 * @example
 * encodeId({ time: Date.now(), shardId: 3, sequence: 0 }, presets.js53);
 */
export const presets = Object.freeze({
  sheaf: createLayout({ name: 'sheaf', epoch: '2024-01-01T00:00:00Z', timeBits: 41, shardBits: 12, sequenceBits: 10 }),
  instagram: createLayout({ name: 'instagram', epoch: 1314220021721, timeBits: 41, shardBits: 13, sequenceBits: 10 }),
  twitter: createLayout({ name: 'twitter', epoch: 1288834974657, timeBits: 41, shardBits: 10, sequenceBits: 12 }),
  js53: createLayout({ name: 'js53', epoch: '2024-01-01T00:00:00Z', timeBits: 41, shardBits: 4, sequenceBits: 8 }),
});

/**
 * Name of a built-in layout.
 *
 * @example
 * const name: PresetName = 'twitter';
 */
export type PresetName = keyof typeof presets;

/**
 * The layout used when none is given: the `sheaf` preset.
 *
 * @example
 * defaultLayout.name; // 'sheaf'
 */
export const defaultLayout: Layout = presets.sheaf;

/**
 * Looks up a preset by name (from a CLI flag or a config file, say); throws `INVALID_LAYOUT` listing
 * the known names otherwise.
 *
 * @example
 * layoutByName('instagram').shardBits; // 13
 */
export function layoutByName(name: string): Layout {
  // hasOwn keeps inherited names such as 'toString' from passing as presets.
  if (typeof name === 'string' && Object.hasOwn(presets, name)) return presets[name as PresetName];
  const known = Object.keys(presets);
  throw new SheafError(
    'INVALID_LAYOUT',
    `layout ${formatValue(name)} is not a preset; known layouts: ${known.join(', ')}`,
    { details: { name: jsonSafe(name), known } },
  );
}

/**
 * What an option typed `Layout | PresetName` names: the default layout when undefined, a preset by
 * name, else a checked layout; `INVALID_LAYOUT` for anything else (null, an unknown name, options
 * not passed through `defineLayout`).
 *
 * @example
 * layoutOrPreset('twitter') === presets.twitter; // true
 */
export function layoutOrPreset(value: unknown): Layout {
  if (value === undefined) return defaultLayout;
  return typeof value === 'string' ? layoutByName(value) : checkLayout(value);
}
