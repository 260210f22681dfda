import { install } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectDistinct, expectIncreasing, idsOf } from '../support/pg-clock.js';

// Version 8 changed the slow path's lock. Sessions inside the old function when the upgrade commits
// finish with the old lock, so for a minute openers also take it: an upgrade while every session
// generates must not hand out an id twice.
describeTargets(
  'upgrading to version 8 while sessions generate',
  (db) => {
    it('6 sessions × 60,000 ids across the upgrade: no duplicate, increasing within each session', async () => {
      await install(db().executor, { shard: 4, upTo: 7 });
      const sessions = await db().sessions(6);
      let upgraded = false;
      const rounds = { before: 0, after: 0 };
      const perSession = Promise.all(
        sessions.map(async (session) => {
          const ids: bigint[] = [];
          for (let round = 0; round < 60; round++) {
            const startedAfter = upgraded;
            ids.push(
              ...idsOf(
                await session.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 1000)'),
              ),
            );
            rounds[startedAfter ? 'after' : 'before']++;
          }
          return ids;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const result = await install(db().executor);
      upgraded = true;
      const all = await perSession;
      expect(result.applied).toContain(8);
      // Rounds ran on the old functions and on the new ones.
      expect(rounds.before).toBeGreaterThan(0);
      expect(rounds.after).toBeGreaterThan(0);
      for (const [index, ids] of all.entries()) expectIncreasing(ids, `session ${index}`);
      expect(expectDistinct(all.flat())).toBe(360_000);
      const [row] = await db().executor.query<{ legacy: boolean }>(
        'select legacy_until > clock_timestamp() as legacy from sheaf.lock_secret',
      );
      expect(row?.legacy).toBe(true);
    });
  },
  { only: ['postgres'] },
);
