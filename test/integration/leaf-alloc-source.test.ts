import { install, leafAllocSource, SegmentGenerator, type SqlExecutor } from '@sheaf/core';
import { afterEach, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { leafSegment, leafTableSql, rawConnection, versionedSegment } from '../support/leaf-server.js';
import { queryState } from '../support/state-sql.js';

// Meituan Leaf's leaf_alloc table shared by Leaf servers (their own SQL, on connections of their
// own) and sheaf's generators during a rolling switch, and the copy into sheaf.segments.
describeTargets(
  'a Leaf leaf_alloc table as the source of SegmentGenerator',
  (db, target) => {
    const sql = () => db().executor;
    const open: SegmentGenerator<'number'>[] = [];
    let tables = 0;

    /** A fresh Leaf table with one row (`max_id` 1, as Leaf's sample data) for `orders`. */
    async function leafTable(version: boolean, step = 100): Promise<string> {
      const table = `leaf_alloc_${++tables}`;
      await sql().query(leafTableSql(target, table, version));
      const values = target === 'postgres' ? '($1, 1, $2, $3)' : '(?, 1, ?, ?)';
      await sql().query(`insert into ${table} (biz_tag, max_id, step, description) values ${values}`, [
        'orders',
        step,
        'test',
      ]);
      return table;
    }

    function generator(executor: SqlExecutor, table: string, options: { step?: number; prefetchRatio?: number } = {}) {
      // A fixed step: many allocations, interleaved with the Leaf servers'.
      const source = leafAllocSource(executor, { table });
      const made = new SegmentGenerator(source, { bizTag: 'orders', dynamicStep: false, ...options });
      open.push(made);
      return made;
    }

    afterEach(async () => {
      await Promise.all(open.splice(0).map((made) => made.close()));
    });

    for (const version of [false, true]) {
      const variant = version ? 'the variant with a version column' : 'Leaf’s table';
      it(`${variant}: 2 Leaf servers and 3 generators × 4 callers at once hand out no id twice`, async () => {
        const table = await leafTable(version, 50);
        const servers = await Promise.all([0, 1].map(() => rawConnection(target, db().url!)));
        try {
          const generators = [0, 1, 2].map(() => generator(sql(), table, { step: 20, prefetchRatio: 0.5 }));
          let done = false;
          const leafIds: bigint[] = [];
          const serving = servers.map(async (server, index) => {
            for (let i = 0; !done; i++) {
              // Leaf's dynamic step passes its own step every other time.
              const custom = index === 1 && i % 2 === 1 ? 80 : undefined;
              leafIds.push(
                ...(version
                  ? await versionedSegment(target, server, table, 'orders')
                  : await leafSegment(target, server, table, 'orders', custom)),
              );
            }
          });
          const sheafIds = (
            await Promise.all(
              generators.flatMap((ids) =>
                [0, 1, 2, 3].map(async () => {
                  const mine: number[] = [];
                  for (let i = 0; i < 800; i++) mine.push(ids.nextSync() ?? (await ids.next()));
                  return mine;
                }),
              ),
            )
          ).flat();
          done = true;
          await Promise.all(serving);
          const all = [...leafIds.map(String), ...sheafIds.map(String)];
          // 9,600 ids in segments of 19 (about 500 allocations) against the Leaf servers' own.
          expect(leafIds.length).toBeGreaterThan(500);
          expect(sheafIds.length).toBe(9600);
          expect(generators.reduce((sum, ids) => sum + ids.stats().segments, 0)).toBeGreaterThan(480);
          expect(new Set(all).size).toBe(all.length);
          expect(sheafIds.every((id) => id > 0)).toBe(true);
        } finally {
          await Promise.all(servers.map((server) => server.close()));
        }
      });
    }

    it('takes the ids strictly between the old and the new max_id: both ends stay with the Leaf servers', async () => {
      const table = await leafTable(false, 10);
      const ids = generator(sql(), table, { step: 10 });
      const taken: number[] = [];
      for (let i = 0; i < 18; i++) taken.push(await ids.next());
      // Leaf would hand out 1…10 and 11…20; sheaf leaves out 1 and 11 (the ends Leaf's derivatives take 11 and 21 of).
      expect(taken).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      expect(ids.stats().step).toBe(10);
    });

    it('refuses a bad table name at once and a missing table, row or column at start()', async () => {
      for (const name of ['leaf_alloc; drop table x', 'a.b.c', '', '1leaf', 'x'.repeat(64)]) {
        expectSheafError(() => leafAllocSource(sql(), { table: name }), 'INVALID_ARGUMENT', 'table must be a name');
      }
      expectSheafError(() => leafAllocSource(sql(), { versionColumn: 'v-1' }), 'INVALID_ARGUMENT', '"v-1"');
      expectSheafError(() => leafAllocSource(sql(), { maxRetries: 0 }), 'INVALID_ARGUMENT', 'maxRetries');
      await expectSheafRejection(generator(sql(), 'no_such_table').start(), 'UNKNOWN_TABLE', 'no_such_table');
      const table = await leafTable(false);
      const other = new SegmentGenerator(leafAllocSource(sql(), { table }), { bizTag: 'nope' });
      open.push(other);
      await expectSheafRejection(other.start(), 'UNKNOWN_SEGMENT', "unknown segment 'nope': no row in");
      const named = new SegmentGenerator(leafAllocSource(sql(), { table, versionColumn: 'lock_version' }), {
        bizTag: 'orders',
      });
      open.push(named);
      await expectSheafRejection(named.start(), 'INVALID_ARGUMENT', 'has no column lock_version');
      await sql().query(`create table not_leaf_${tables} (biz_tag varchar(128) primary key, max_id bigint)`);
      await expectSheafRejection(generator(sql(), `not_leaf_${tables}`).start(), 'INVALID_ARGUMENT', 'no column step');
      const tiny = await leafTable(false, 1);
      await expectSheafRejection(generator(sql(), tiny).start(), 'INVALID_ARGUMENT', 'has step 1', 'at least 2');
    });

    it('copying max_id into sheaf.segments with headroom: Leaf servers still running stay below it', async () => {
      await install(sql());
      const table = await leafTable(false, 100);
      const server = await rawConnection(target, db().url!);
      try {
        const leafIds: bigint[] = [];
        for (let i = 0; i < 5; i++) leafIds.push(...(await leafSegment(target, server, table, 'orders')));
        // The copy of docs/generators.md: sheaf's first id is above every id Leaf may still hand
        // out until its servers stop, if they take less than the headroom (here 10,000) meanwhile.
        await sql().session(async (session) => {
          if (target === 'postgres') {
            await session.query(
              `select sheaf.create_segment(biz_tag, step, max_id + 10000, 'adopted from ${table}') from ${table} where biz_tag = $1`,
              ['orders'],
            );
          } else {
            await session.query(
              `select max_id + 10000, step into @sheaf_max, @sheaf_step from ${table} where biz_tag = ?`,
              ['orders'],
            );
            await queryState(
              session,
              `call {state}.sheaf_create_segment(?, @sheaf_step, @sheaf_max, 'adopted from ${table}')`,
              ['orders'],
            );
          }
        });
        for (let i = 0; i < 50; i++) leafIds.push(...(await leafSegment(target, server, table, 'orders')));
        const ids = new SegmentGenerator(sql(), { bizTag: 'orders' });
        open.push(ids as SegmentGenerator<'number'>);
        const sheafIds: bigint[] = [];
        for (let i = 0; i < 500; i++) sheafIds.push(BigInt(await ids.next()));
        const all = [...leafIds, ...sheafIds].map(String);
        expect(new Set(all).size).toBe(all.length);
        expect(sheafIds[0]).toBeGreaterThan(leafIds.reduce((a, b) => (a > b ? a : b)));
      } finally {
        await server.close();
      }
    });
  },
  // Leaf servers need connections of their own; PGlite has one.
  { only: ['postgres', 'mariadb'] },
);
