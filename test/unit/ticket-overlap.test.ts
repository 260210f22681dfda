import { type TicketSeries, ticketOverlap } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

/** The first value both servers hand out, found by stepping the one behind; undefined past `limit`. */
function bruteForce(a: TicketSeries, b: TicketSeries, limit: bigint): bigint | undefined {
  let [x, y] = [BigInt(a.offset), BigInt(b.offset)];
  while (x !== y) {
    if (x > limit || y > limit) return undefined;
    if (x < y) x += BigInt(a.step);
    else y += BigInt(b.step);
  }
  return x;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

describe('ticketOverlap', () => {
  it.each([
    // step/offset of a, of b, first shared value, period
    [2, 1, 2, 1, 1n, 2n],
    [2, 1, 2, 2, undefined, undefined],
    [2, 1, 3, 1, 1n, 6n],
    [4, 1, 6, 3, 9n, 12n],
    [4, 1, 6, 2, undefined, undefined],
    [1, 1, 5, 3, 3n, 5n],
    [3, 3, 5, 5, 15n, 15n],
    [3, 2, 5, 4, 14n, 15n],
    [10, 10, 4, 2, 10n, 20n],
  ])('step %i offset %i and step %i offset %i meet at %s, then every %s', (sa, oa, sb, ob, first, every) => {
    const a = { step: sa, offset: oa };
    const b = { step: sb, offset: ob };
    const expected = first === undefined ? undefined : { first, every };
    expect(ticketOverlap(a, b)).toEqual(expected);
    expect(ticketOverlap(b, a)).toEqual(expected);
  });

  it('agrees with stepping both servers, for every step up to 24 and offset up to 30', () => {
    const disagreements: string[] = [];
    // Offsets above the step too (sheaf's own never are): a server then starts past its first lap.
    for (let sa = 1; sa <= 24; sa++) {
      for (let oa = 1; oa <= 30; oa++) {
        for (let sb = 1; sb <= 24; sb++) {
          for (let ob = 1; ob <= 30; ob++) {
            const a = { step: sa, offset: oa };
            const b = { step: sb, offset: ob };
            const period = (BigInt(sa) * BigInt(sb)) / gcd(BigInt(sa), BigInt(sb));
            const found = bruteForce(a, b, period + 60n);
            const result = ticketOverlap(a, b);
            if (result?.first !== found || (result !== undefined && result.every !== period)) {
              disagreements.push(`${sa}/${oa} and ${sb}/${ob}: ${result?.first} every ${result?.every}, not ${found}`);
            }
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('starts at the larger offset when an offset exceeds its step', () => {
    // 5, 7, 9, … and 2, 5, 8, …: 5 is the first both hand out, though 2 ≡ 5 (mod 3) comes first for b.
    expect(ticketOverlap({ step: 2, offset: 5 }, { step: 3, offset: 2 })).toEqual({ first: 5n, every: 6n });
    expect(ticketOverlap({ step: 7, offset: 100 }, { step: 7, offset: 2 })).toEqual({ first: 100n, every: 7n });
    // 1, 3, 5, … meets 11, 14, … first at 11, though 5 solves both congruences.
    expect(ticketOverlap({ step: 2, offset: 1 }, { step: 3, offset: 11 })).toEqual({ first: 11n, every: 6n });
  });

  it('stays exact for steps up to 2^31 - 1 (an lcm near 2^62)', () => {
    const max = 2 ** 31 - 1;
    // Two primes near 2^31: they meet once per lcm, far beyond 2^53.
    const a = { step: max, offset: 5 };
    const b = { step: max - 18, offset: 7 }; // 2147483629, also prime
    const result = ticketOverlap(a, b)!;
    expect(result.every).toBe(BigInt(max) * BigInt(max - 18));
    expect(result.first > 2n ** 53n).toBe(true);
    for (const server of [a, b]) {
      expect((result.first - BigInt(server.offset)) % BigInt(server.step)).toBe(0n);
      expect(result.first >= BigInt(server.offset)).toBe(true);
    }
    expect(ticketOverlap({ step: max, offset: max }, { step: max, offset: max })).toEqual({
      first: BigInt(max),
      every: BigInt(max),
    });
    expect(ticketOverlap({ step: 2 ** 30, offset: 1 }, { step: 2 ** 31 - 2, offset: 2 })).toBeUndefined();
  });

  it('finds the least common value for random large steps, checked by the congruences', () => {
    const random = seededRandom(20240601);
    for (let i = 0; i < 2000; i++) {
      const shared = random.int(1, 2 ** 16);
      const a = { step: shared * random.int(1, 2 ** 15), offset: 0 };
      const b = { step: shared * random.int(1, 2 ** 15), offset: 0 };
      const withOffsets = {
        a: { ...a, offset: random.int(1, a.step) },
        b: { ...b, offset: random.int(1, b.step) },
      };
      const result = ticketOverlap(withOffsets.a, withOffsets.b);
      const g = gcd(BigInt(a.step), BigInt(b.step));
      const meets = (BigInt(withOffsets.a.offset) - BigInt(withOffsets.b.offset)) % g === 0n;
      expect(result !== undefined, `seed 20240601, case ${i}`).toBe(meets);
      if (!result) continue;
      expect(result.every).toBe((BigInt(a.step) * BigInt(b.step)) / g);
      for (const server of [withOffsets.a, withOffsets.b]) {
        expect((result.first - BigInt(server.offset)) % BigInt(server.step)).toBe(0n);
      }
      // Least: one period less is below an offset, or not shared at all (it is, by congruence).
      const earlier = result.first - result.every;
      expect(earlier < BigInt(withOffsets.a.offset) || earlier < BigInt(withOffsets.b.offset)).toBe(true);
    }
  });

  it('refuses a step below 1 or an offset that is not an integer, naming them', () => {
    expectSheafError(() => ticketOverlap({ step: 0, offset: 1 }, { step: 2, offset: 1 }), 'INVALID_ARGUMENT', 'step 0');
    expectSheafError(
      () => ticketOverlap({ step: 2, offset: 1.5 }, { step: 2, offset: 1 }),
      'INVALID_ARGUMENT',
      'offset 1.5',
    );
  });
});
