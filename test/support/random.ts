/**
 * A seeded PRNG (mulberry32) so property-style loops are reproducible: a failure names its seed.
 *
 * @example
 * const random = seededRandom(42);
 * random.int(0, 1023);
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    /** Uniform integer in [min, max], exact for spans up to 2^53 (two draws give 64 random bits). */
    int(min: number, max: number): number {
      const span = BigInt(max - min) + 1n;
      const bits = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
      return min + Number(bits % span);
    },
  };
}
