import { SheafError } from '../../errors.js';

/**
 * What one ticket server hands out: `offset + k·step` for k = 0, 1, 2, …
 *
 * @example
 * const odd: TicketSeries = { step: 2, offset: 1 }; // 1, 3, 5, …
 */
export interface TicketSeries {
  readonly step: number;
  readonly offset: number;
}

/**
 * Where two ticket servers meet: `first`, then every `every` after it.
 *
 * @example
 * const meeting: TicketOverlap = { first: 9n, every: 12n };
 */
export interface TicketOverlap {
  readonly first: bigint;
  readonly every: bigint;
}

/**
 * The first value two ticket servers both hand out, or undefined when they never meet. They meet
 * iff their offsets are congruent modulo gcd(step_a, step_b) (the Chinese remainder theorem), then
 * every lcm(step_a, step_b). Bigint throughout: two steps near 2^31 have an lcm near 2^62.
 *
 * @example
 * ticketOverlap({ step: 4, offset: 1 }, { step: 6, offset: 3 }); // { first: 9n, every: 12n }
 * ticketOverlap({ step: 2, offset: 1 }, { step: 2, offset: 2 }); // undefined
 */
export function ticketOverlap(a: TicketSeries, b: TicketSeries): TicketOverlap | undefined {
  const [m, x] = checked(a);
  const [n, y] = checked(b);
  const g = gcd(m, n);
  if (mod(y - x, g) !== 0n) return undefined;
  const every = (m / g) * n;
  // x + m·k ≡ y (mod n)  ⇔  (m/g)·k ≡ (y − x)/g (mod n/g), where m/g is invertible.
  const k = mod(((y - x) / g) * inverse(m / g, n / g), n / g);
  let first = x + m * k;
  // first lies in [x, x + lcm); the other server starts at y, which may be above it.
  if (first < y) first += ((y - first + every - 1n) / every) * every;
  return { first, every };
}

function checked(server: TicketSeries): [bigint, bigint] {
  const { step, offset } = server;
  if (!Number.isSafeInteger(step) || step < 1 || !Number.isSafeInteger(offset) || offset < 0) {
    throw new SheafError('INVALID_ARGUMENT', `ticket step ${step} and offset ${offset} must be integers, step ≥ 1`, {
      details: { step, offset },
    });
  }
  return [BigInt(step), BigInt(offset)];
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The inverse of `a` modulo `m` (a and m coprime), by the extended Euclidean algorithm. */
function inverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [mod(a, m), m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return mod(s0, m);
}

// Bigint % keeps the sign of the dividend.
function mod(a: bigint, m: bigint): bigint {
  return ((a % m) + m) % m;
}
