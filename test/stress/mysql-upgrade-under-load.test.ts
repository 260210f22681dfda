import { install, sheafTriggerSql } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectDistinct, expectIncreasing, idsOf } from '../support/pg-clock.js';

/** The MySQL error number under a (converted) error. */
const errnoOf = (error: unknown) => {
  const { errno, cause } = error as { errno?: number; cause?: { errno?: number } };
  return errno ?? cause?.errno;
};

// Version 12 moves sheaf's tables into sheaf_<app> with one RENAME TABLE and then replaces the
// routines of the application's database by forwards: in between, a statement reaching the old
// routines fails with 1146 (their tables moved) or 1305 (a routine between its drop and its create),
// and nothing else may go wrong. No id is issued twice, and each session's ids keep increasing.
describeTargets(
  'upgrading MySQL/MariaDB from 11 to 12 while sessions insert and take batches',
  (db) => {
    it('6 sessions through a trigger and sheaf_next_ids(50) across the move: no duplicate, increasing per session', async () => {
      const sql = db().executor;
      await install(sql, { shard: 4, upTo: 11 });
      await sql.query('create table orders (id bigint not null auto_increment primary key, v int)');
      await sql.query(sheafTriggerSql('orders', 'id').create);
      const sessions = await db().sessions(6);
      let upgraded = false;
      const rounds = { before: 0, after: 0 };
      const refused = new Map<number | undefined, number>();
      const perSession = Promise.all(
        sessions.map(async (session) => {
          const ids: bigint[] = [];
          for (let after = 0; after < 20; ) {
            const startedAfter = upgraded;
            for (const take of [
              'insert into orders (v) values (1), (2), (3), (4), (5) returning id',
              'call sheaf_next_ids(50)',
            ]) {
              try {
                ids.push(...idsOf(await session.query<{ id: unknown }>(take)));
              } catch (error) {
                const errno = errnoOf(error);
                refused.set(errno, (refused.get(errno) ?? 0) + 1);
                // Only while the upgrade runs: once install() returned, every statement succeeds.
                if (startedAfter || (errno !== 1146 && errno !== 1305)) throw error;
              }
            }
            rounds[startedAfter ? 'after' : 'before']++;
            if (startedAfter) after++;
          }
          return ids;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const result = await install(sql).finally(() => {
        upgraded = true;
      });
      const all = await perSession;
      expect(result.applied).toContain(12);
      expect(rounds.before).toBeGreaterThan(0);
      expect(rounds.after).toBeGreaterThan(0);
      for (const [index, ids] of all.entries()) expectIncreasing(ids, `session ${index}`);
      const issued = all.flat();
      expect(expectDistinct(issued)).toBe(issued.length);
      // Every row stored went in through a statement that returned its id.
      const returned = new Set(issued);
      const stored = idsOf(await sql.query<{ id: unknown }>('select id from orders'));
      expect(stored.filter((id) => !returned.has(id))).toEqual([]);
      console.log(
        `rounds before ${rounds.before}, after ${rounds.after}; ids ${issued.length}; refused`,
        Object.fromEntries(refused),
      );
    });
  },
  { only: ['mariadb'] },
);
