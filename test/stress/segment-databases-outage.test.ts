import { install, SegmentGenerator, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Opened, openDatabase } from '../support/database.js';
import { type ScratchOutage, scratchOutages } from '../support/scratch-outage.js';
import { classMaxId, createSegmentClass } from '../support/segment-classes.js';
import { until } from '../support/test-clock.js';

const total = 24_000;
const generators = 4;
const callersPerGenerator = 6;
const step = 40;

// One biz_tag over three databases: two on the shared server, the third a scratch server that is
// killed with SIGKILL while 24 callers take ids. Nothing is mocked: the drivers see broken sockets
// and refused connections.
for (const { target, missing, open } of scratchOutages) {
  describe.skipIf(Boolean(missing))(
    `one segment over three databases, one killed [${target}${missing ? `: ${missing}` : ''}]`,
    () => {
      // The database the test kills: a scratch server of its own, never the shared one.
      let doomed: ScratchOutage;
      const stable: Opened[] = [];
      let dbs: SqlExecutor[] = [];
      let passed = false;

      beforeAll(async () => {
        [doomed] = await Promise.all([open(), ...[0, 1].map(async () => stable.push(await openDatabase(target)))]);
        dbs = [...stable.map((each) => each.database.executor), doomed.executor];
        for (const [k, executor] of dbs.entries()) {
          await install(executor);
          await createSegmentClass(executor, 'orders', 3, k, step);
        }
      }, 180_000);

      afterAll(async () => {
        await doomed?.destroy();
        for (const each of stable) await each.close(passed);
      });

      it(`${generators} generators × ${callersPerGenerator} callers, database 2 killed a quarter in: no error, no id twice, each id in its database’s class`, async () => {
        const options = {
          bizTag: 'orders',
          dynamicStep: false,
          queryTimeoutMs: 1000,
          retry: { minMs: 20, maxMs: 200 },
        };
        const all = await Promise.all(
          Array.from({ length: generators }, () => new SegmentGenerator(dbs, options).start()),
        );
        const ids: number[] = [];
        const failures: unknown[] = [];
        let killedAt = -1;
        let killing: Promise<void> | undefined;
        const caller = async (ids$: SegmentGenerator) => {
          while (ids.length < total) {
            try {
              ids.push(ids$.nextSync() ?? (await ids$.next()));
            } catch (error) {
              failures.push(error);
            }
            if (killedAt < 0 && ids.length >= total / 4) {
              killedAt = ids.length;
              killing = doomed.crash();
            }
            // Traffic, not a busy loop: the background fetches get their turn.
            if (ids.length % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
        };
        await Promise.all(all.flatMap((ids$) => Array.from({ length: callersPerGenerator }, () => caller(ids$))));
        await killing;
        expect(failures).toEqual([]);
        expect(new Set(ids).size).toBe(ids.length);
        // Database 2's ids after the kill came from the buffers: at most two segments per generator.
        const lateFromDoomed = ids.slice(killedAt).filter((id) => id % 3 === 2).length;
        expect(lateFromDoomed).toBeLessThanOrEqual(generators * 2 * step);
        const statuses = all.map((ids$) => ids$.databases()[2]!);
        expect(statuses.some((status) => !status.up)).toBe(true);

        // Back up: its max_id bounds every id of its class, and the generators take segments from it again.
        await doomed.start();
        const before = all.map((ids$) => ids$.databases()[2]!.segments);
        await until(
          () => {
            for (const ids$ of all) for (let i = 0; i < 20; i++) ids.push(ids$.nextSync() ?? 0);
            return all.some((ids$, i) => ids$.databases()[2]!.segments > before[i]!);
          },
          20_000,
          'a segment from the restarted database',
        );
        const handed = ids.filter((id) => id !== 0);
        expect(new Set(handed).size).toBe(handed.length);
        for (const [k, executor] of dbs.entries()) {
          const max = await classMaxId(executor, 'orders');
          const mine = handed.filter((id) => id % 3 === k);
          expect(mine.length).toBeGreaterThan(0);
          expect(mine.every((id) => BigInt(id) <= max)).toBe(true);
        }
        await Promise.all(all.map((ids$) => ids$.close()));
        passed = true;
      }, 60_000);
    },
  );
}
