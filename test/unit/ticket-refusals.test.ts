import { describe, expect, it } from 'vitest';
import { inSeries, refusalOf } from '../../packages/core/src/generators/tickets/refusals.js';

const server = (index: number, step: number, offset: number) => ({
  index,
  step,
  offset,
  where: `db${index + 1}`,
  read: `step ${step}, offset ${offset}`,
});

describe('refusalOf', () => {
  it('lets servers join whose series never meet, whatever their steps', () => {
    const known = [server(0, 2, 1), server(1, 4, 2)];
    expect(refusalOf('t', server(2, 4, 4), known, 3)).toBeUndefined();
  });

  it('names both servers in their order, the first shared value and the period', () => {
    const error = refusalOf('orders', server(0, 6, 3), [server(1, 4, 1)], 2)!;
    expect(error.code).toBe('TICKETS_OVERLAP');
    expect(error.message).toBe(
      "sheaf: ticket 'orders': server 1 (db1: step 6, offset 3) and server 2 (db2: step 4, offset 1) both hand out " +
        '9, then every 12: give each server the same step and an offset of its own',
    );
    expect(error.details).toMatchObject({ first: '9', every: '12', servers: [{ index: 0 }, { index: 1 }] });
  });

  it('refuses step 1 beside other servers before any of them answered, and allows it alone', () => {
    expect(refusalOf('t', server(2, 1, 1), [], 3)?.message).toContain(
      'hands out every value (step 1), so it meets each of the other 2 servers: give each of the 3 servers the ' +
        'same step of at least 3',
    );
    expect(refusalOf('t', server(0, 1, 1), [], 1)).toBeUndefined();
  });
});

describe('inSeries', () => {
  it('tells the values offset + k·step apart from the rest, below the offset too', () => {
    const odd = server(0, 2, 1);
    expect([1n, 3n, 2n ** 63n - 1n].map((id) => inSeries(id, odd))).toEqual([true, true, true]);
    expect([2n, 0n].map((id) => inSeries(id, odd))).toEqual([false, false]);
    expect(inSeries(-5n, server(0, 3, 1))).toBe(true);
  });
});
