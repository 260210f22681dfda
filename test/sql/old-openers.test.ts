import { install } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeGeneratorPaths, takeIds } from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing } from '../support/pg-clock.js';

// During an upgrade from before version 16 under load, a session still in a function of the old
// version opens blocks and publishes them in sheaf.block alone (version 16 added sheaf.live_block).
// The next opener of the new version must open above that block, or it opens it again in the same
// millisecond and hands out its ids a second time (docs/sql/postgres.md, "Why no id is ever issued
// twice"). The old session's opening is done here by hand, as its slow path does it: the counter
// first, then sheaf.block.

const shard = 3n;
const epochMs = 1704067200000n;

describeGeneratorPaths(
  'a block published in sheaf.block alone',
  (db, target, path) => {
    beforeAll(() => install(db().executor, { shard: Number(shard), testClock: true, ...path.install(target) }));

    it('is not opened again by the next opener, and none of its ids is handed out again', async () => {
      await db().executor.session(async (s) => {
        const start = 1_830_000_000_000n;
        await s.query(`set sheaf.clock_ms = '${start}'`);
        const before = await takeIds(s, 10);
        const tick = (before.at(-1)! >> 22n) + 1n;
        const old = (tick << 22n) | (shard << 10n);
        await s.query(`select setval('sheaf.counter', ${old + 1n}, false)`);
        await s.query(`select setval('sheaf.block', ${old | 1023n})`);
        // The old session hands out the block's first id and the next ones from the counter.
        const rows = await s.query<{ id: unknown }>("select nextval('sheaf.counter') as id from generate_series(1, 5)");
        const oldIds = [old, ...rows.map((row) => BigInt(row.id as string))];

        // The clock reaches the old block's millisecond: the next call finds its block used up.
        await s.query(`set sheaf.clock_ms = '${epochMs + tick}'`);
        const after = await takeIds(s, 3000);
        expectIncreasing([...before, ...after]);
        expect(expectDistinct([...before, ...oldIds, ...after])).toBe(before.length + oldIds.length + after.length);
        expect(after[0]! >> 22n).toBeGreaterThan(tick);
      });
    });
  },
  { only: ['postgres', 'pglite'] },
);
