// The online backfill's progress while rows arrive: rows inserted after the count, with keys below
// the backfill's upper key, are copied too, so more rows are done than were counted. The bar must
// say so instead of showing 100% (or more) before the end, and the state must end consistent.
import { install } from '@sheaf/core';
import { expect, it } from 'vitest';
import { inspect } from '../../packages/migrate/src/migrate.js';
import { runOnline } from '../../packages/migrate/src/online/online-postgres.js';
import { describeTargets } from '../support/database.js';

describeTargets(
  'online backfill progress with rows inserted meanwhile',
  (db) => {
    it('stays below 100% until the end, then shows and records what was copied', async () => {
      const sql = db().executor;
      await install(sql, { shard: 7 });
      // Even keys now; odd ones arrive later, below the upper key.
      await sql.query('create table events (id integer primary key, v integer)');
      await sql.query('insert into events select 2 * g, g from generate_series(1, 2000) g');
      const inspection = await inspect(sql, { tables: ['events'] });
      expect(inspection.tables[0]?.rowCount).toBe(2000n);
      await sql.query('insert into events select 2 * g - 1, g from generate_series(1, 300) g');
      const [writer] = await db().sessions(1);
      let running = true;
      const inserting = (async () => {
        for (let id = 1001; running && id < 3999; id += 2) {
          // A column list: the swap moves the id column last.
          await writer?.query('insert into events (id, v) values ($1, 0)', [id]);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const lines: string[] = [];
      const output = { out: () => undefined, err: (text: string) => lines.push(text) };
      try {
        // A pause longer than the bar's redraw interval: every batch draws a line.
        await runOnline(sql, inspection, output, { batchSize: 200, pauseMs: 110, interactive: true });
      } finally {
        running = false;
        await inserting;
      }
      const bars = lines
        .join('')
        .split(/[\r\n]/)
        .filter((line) => line.startsWith('backfill public.events'));
      const percents = bars.map((line) => Number(/\((\d+)%\)/.exec(line)?.[1]));
      expect(percents.length).toBeGreaterThan(5);
      expect(Math.max(...percents)).toBe(100);
      expect(percents.slice(0, -1).every((percent) => percent < 100)).toBe(true);
      expect(bars.some((line) => / \d+ rows, more than the 2000 counted at the start \(99%\)/.test(line))).toBe(true);
      const [, copied] = /\] (\d+)\/\1 rows \(100%\)/.exec(bars.at(-1) ?? '') ?? [];
      expect(Number(copied)).toBeGreaterThanOrEqual(2300);
      const [state] = await sql.query<{ done: string; total: string }>(
        `select rows_done::text as done, rows_total::text as total from sheaf.online_migrations where table_name = 'events'`,
      );
      expect(state).toEqual({ done: copied, total: copied });
      const [rows] = await sql.query<{ n: string; keyed: string }>(
        `select count(*)::text as n, count(*) filter (where column_default like 'sheaf.next_id%')::text as keyed
         from events cross join information_schema.columns where table_name = 'events' and column_name = 'id'`,
      );
      expect(rows?.keyed).toBe(rows?.n);
    });
  },
  { only: ['postgres'] },
);
