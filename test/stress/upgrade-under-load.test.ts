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
    it('6 sessions × 60,000 ids or more across the upgrade: no duplicate, increasing within each session', async () => {
      await install(db().executor, { shard: 4, upTo: 7 });
      const sessions = await db().sessions(6);
      let upgraded = false;
      const rounds = { before: 0, after: 0 };
      // The upgrade changes next_id()'s language from PL/pgSQL (docs/sql/postgres.md): a statement
      // calling it row after row as the upgrade commits may fail with 42601 and hand out nothing. It
      // is run again, as the docs tell applications to; any other error fails the test.
      let rerun = 0;
      const take = (session: (typeof sessions)[number]) =>
        session
          .query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 1000)')
          .catch((error: { code?: string; cause?: { code?: string } }) => {
            if ((error.code ?? error.cause?.code) !== '42601' || rerun >= sessions.length) throw error;
            rerun++;
            return undefined;
          });
      const perSession = Promise.all(
        sessions.map(async (session) => {
          const ids: bigint[] = [];
          // 60 rounds, and on until this session ran 2 on the new functions: an upgrade that takes
          // longer than the rounds on a busy machine would otherwise leave nothing to test after it.
          for (let round = 0, after = 0; round < 60 || after < 2; round++) {
            const startedAfter = upgraded;
            const rows = await take(session);
            if (rows === undefined) {
              round--;
              continue;
            }
            ids.push(...idsOf(rows));
            rounds[startedAfter ? 'after' : 'before']++;
            if (startedAfter) after++;
          }
          return ids;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const result = await install(db().executor).finally(() => {
        upgraded = true;
      });
      const all = await perSession;
      expect(result.applied).toContain(8);
      // Rounds ran on the old functions and on the new ones.
      expect(rounds.before).toBeGreaterThan(0);
      expect(rounds.after).toBeGreaterThan(0);
      for (const [index, ids] of all.entries()) expectIncreasing(ids, `session ${index}`);
      expect(all.every((ids) => ids.length >= 60_000)).toBe(true);
      expect(expectDistinct(all.flat())).toBe(all.flat().length);
      const [row] = await db().executor.query<{ legacy: boolean }>(
        'select legacy_until > clock_timestamp() as legacy from sheaf.lock_secret',
      );
      expect(row?.legacy).toBe(true);
    });
  },
  { only: ['postgres'] },
);

// After an upgrade from versions 1-7, openers also take the old fixed key for a minute. A session
// still inside the old function may hold it for more than one 5 ms step: the opener waits (up to the
// 2 s deadline) instead of failing with GENERATOR_BUSY.
describeTargets(
  'the old fixed key after an upgrade',
  (db) => {
    it('an opener waits for a holder of the old key instead of failing', async () => {
      await install(db().executor, { shard: 4, upTo: 7 });
      // Ids issued before the upgrade: only then is the old key taken afterwards.
      await db().executor.query('select sheaf.next_id()');
      await install(db().executor);
      const [row] = await db().executor.query<{ legacy: boolean }>(
        'select legacy_until > clock_timestamp() as legacy from sheaf.lock_secret',
      );
      expect(row?.legacy).toBe(true);
      const [holder, opener] = await db().sessions(2);
      await holder!.query('select pg_advisory_lock(495672713574)');
      const ids = opener!.query<{ id: unknown }>('select sheaf.next_id() as id from generate_series(1, 3000)');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await holder!.query('select pg_advisory_unlock(495672713574)');
      expect(expectDistinct(idsOf(await ids))).toBe(3000);
    });
  },
  { only: ['postgres'] },
);
