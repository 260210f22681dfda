import type { Layout } from './layout.js';
import { checkLayout } from './layout-check.js';

/**
 * The last instant `layout` can encode; the first millisecond after it raises `TIME_EXHAUSTED`.
 * Throws `INVALID_LAYOUT` for anything but a layout (an object missing `lastMs` would give an
 * Invalid Date).
 *
 * @example
 * layoutLifetime(presets.sheaf).toISOString(); // '2093-09-06T15:47:35.551Z'
 */
export function layoutLifetime(layout: Layout): Date {
  return new Date(checkLayout(layout).lastMs);
}
