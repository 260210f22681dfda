/** A segment that lasted less than this is too small: the next one is twice as long (Leaf 2.5). */
export const shortSegmentMs = 15 * 60_000;
/** A segment that lasted more than this is too large: the next one is half as long. */
export const longSegmentMs = 30 * 60_000;

/**
 * Leaf's dynamic step: the step follows the load so that a segment lasts 15 to 30 minutes, a
 * database round trip per quarter hour whatever the traffic. `lastedMs` is the time between the
 * previous fetch and this one.
 *
 * @example
 * nextStep(1000, 60_000, { minStep: 1000, maxStep: 100_000 }); // 2000
 */
export function nextStep(step: number, lastedMs: number, bounds: { minStep: number; maxStep: number }): number {
  if (lastedMs < shortSegmentMs) return Math.max(bounds.minStep, Math.min(step * 2, bounds.maxStep));
  if (lastedMs > longSegmentMs) return Math.min(bounds.maxStep, Math.max(Math.floor(step / 2), bounds.minStep));
  return Math.max(bounds.minStep, Math.min(step, bounds.maxStep));
}
