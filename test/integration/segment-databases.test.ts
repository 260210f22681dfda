import {
  install,
  mysql2Executor,
  pgExecutor,
  SegmentGenerator,
  type SegmentGeneratorOptions,
  type SqlExecutor,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeTargets, type Opened, openDatabase } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createSegment } from '../support/generator-sql.js';
import { freePort } from '../support/scratch-cluster.js';
import { allocPlain, classMaxId, createSegmentClass, setClass } from '../support/segment-classes.js';
import type { TargetName } from '../support/targets.js';
import { until } from '../support/test-clock.js';

/** A pool on a port nothing listens on: every query is a refused connection. */
async function deadDatabase(target: TargetName): Promise<{ executor: SqlExecutor; close(): Promise<void> }> {
  const port = await freePort();
  if (target === 'postgres') {
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', connectionTimeoutMillis: 500 });
    pool.on('error', () => undefined);
    return { executor: pgExecutor(pool), close: () => pool.end() };
  }
  const pool = mysql.createPool({ host: '127.0.0.1', port, user: 'root', connectTimeout: 500 });
  return { executor: mysql2Executor(pool), close: () => pool.end() };
}

// One biz_tag over three databases, each its own residue class (the outage is in
// test/stress/segment-databases-outage.test.ts).
describeTargets('SegmentGenerator over several databases', (db, target) => {
  const others: Opened[] = [];
  let passed = true;
  let dbs: SqlExecutor[] = [];
  const open: SegmentGenerator<'number' | 'bigint'>[] = [];
  let tags = 0;

  /** A fresh tag with class k of 3 in database k (step `step`), unless `classes` says otherwise. */
  async function spread(
    step: number,
    classes: readonly (readonly [number, number])[] = [
      [3, 0],
      [3, 1],
      [3, 2],
    ],
  ) {
    const bizTag = `spread_${++tags}`;
    for (const [index, [delta, remainder]] of classes.entries()) {
      await createSegmentClass(dbs[index]!, bizTag, delta, remainder, step);
    }
    return bizTag;
  }

  function generator(databases: readonly SqlExecutor[], options: SegmentGeneratorOptions<'number'>) {
    const made = new SegmentGenerator(databases, options);
    open.push(made);
    return made;
  }

  beforeAll(async () => {
    others.push(await openDatabase(target), await openDatabase(target));
    dbs = [db().executor, ...others.map((other) => other.database.executor)];
    for (const executor of dbs) await install(executor);
  });
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      passed = false;
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((made) => made.close()));
  });
  afterAll(async () => {
    for (const other of others) await other.close(passed);
  });

  it('hands out ids of database k’s class k mod 3 from each, taking segments from each in turn', async () => {
    const bizTag = await spread(10);
    const ids = generator(dbs, { bizTag, dynamicStep: false });
    await ids.start();
    const taken: number[] = [];
    while (taken.length < 300) taken.push(ids.nextSync() ?? (await ids.next()));
    expect(new Set(taken).size).toBe(300);
    // Within a segment every third id: ten ids of one class in a row, rising by 3.
    for (let i = 1; i < 10; i++) expect(taken[i]! - taken[i - 1]!).toBe(3);
    const byClass = [0, 1, 2].map((k) => taken.filter((id) => id % 3 === k));
    expect(byClass.map((list) => list.length)).toEqual([100, 100, 100]);
    for (const [k, executor] of dbs.entries()) {
      const max = Number(await classMaxId(executor, bizTag));
      expect(Math.max(...byClass[k]!)).toBeLessThanOrEqual(max);
    }
    const statuses = ids.databases();
    expect(statuses.map(({ index, remainder, delta, up }) => [index, remainder, delta, up])).toEqual([
      [0, 0, 3, true],
      [1, 1, 3, true],
      [2, 2, 3, true],
    ]);
    expect(statuses.reduce((sum, status) => sum + status.segments, 0)).toBe(ids.stats().segments);
  });

  it.skipIf(target === 'pglite')(
    '4 generators × 8 callers each on one tag: no id twice, each in its database’s class',
    async () => {
      const bizTag = await spread(20);
      const generators = Array.from({ length: 4 }, () => generator(dbs, { bizTag, prefetchRatio: 0.5 }));
      const lists = await Promise.all(
        generators.flatMap((ids) =>
          Array.from({ length: 8 }, async () => {
            const mine: number[] = [];
            for (let i = 0; i < 250; i++) mine.push(ids.nextSync() ?? (await ids.next()));
            return mine;
          }),
        ),
      );
      const all = lists.flat();
      expect(new Set(all).size).toBe(8000);
      for (const [k, executor] of dbs.entries()) {
        const max = await classMaxId(executor, bizTag);
        expect(all.filter((id) => id % 3 === k).every((id) => BigInt(id) <= max)).toBe(true);
      }
    },
  );

  it('refuses at start() a database whose class is not its position’s, naming both databases', async () => {
    const swapped = await spread(10, [
      [3, 0],
      [3, 2],
      [3, 1],
    ]);
    const error = await expectSheafRejection(
      generator(dbs, { bizTag: swapped }).start(),
      'SEGMENT_CLASS_MISMATCH',
      `segment '${swapped}': database 1 of 3 records residue class 2 mod 3, not 1 mod 3`,
      'the class of database 2',
    );
    expect(error.details).toMatchObject({ database: 1, sameClassAs: 2, delta: 3, remainder: 2 });
    // The same database twice: its one class cannot be both positions.
    const twice = await spread(10, [
      [2, 0],
      [2, 1],
    ]);
    await expectSheafRejection(
      generator([dbs[0]!, dbs[0]!], { bizTag: twice }).start(),
      'SEGMENT_CLASS_MISMATCH',
      'database 1 of 2 records residue class 0 mod 2',
      'the class of database 0',
    );
    // A segment of one database, and a class of another number of databases.
    const single = `single_${++tags}`;
    for (const executor of dbs) await createSegment(executor, single, 10);
    await expectSheafRejection(
      generator(dbs, { bizTag: single }).start(),
      'SEGMENT_CLASS_MISMATCH',
      'database 0 of 3 records residue class 0 mod 1',
      'a segment of one database',
    );
    const pair = await spread(10, [
      [2, 0],
      [2, 1],
      [2, 0],
    ]);
    await expectSheafRejection(
      generator(dbs, { bizTag: pair }).start(),
      'SEGMENT_CLASS_MISMATCH',
      'database 0 of 3 records residue class 0 mod 2',
      'but 3 were given',
    );
    await expectSheafRejection(generator(dbs, { bizTag: 'nowhere' }).start(), 'UNKNOWN_SEGMENT', 'on database 0 of 3');
    for (const bizTag of [swapped, twice, single, pair]) {
      for (const executor of dbs) expect(await classMaxId(executor, bizTag).catch(() => 0n)).toBe(0n);
    }
  });

  it('a database that refuses mid-run is skipped (never handed out), and the generator serves from the others', async () => {
    const bizTag = await spread(10);
    const ids = generator(dbs, { bizTag, dynamicStep: false, retry: { minMs: 50, maxMs: 50 } });
    await ids.start();
    // An admin gives database 2's row another class: its allocations are refused by the database.
    await setClass(dbs[2]!, bizTag, 3, 1);
    const taken: number[] = [];
    while (taken.length < 200) taken.push(ids.nextSync() ?? (await ids.next()));
    await until(() => ids.databases()[2]!.failures > 0, 5000, 'a refusal');
    expect(ids.databases()[2]!.lastError).toContain('residue class 1 mod 3 in this database, not 2 mod 3');
    // Only the first segment, taken before the change, may be database 2's.
    expect(taken.slice(10).filter((id) => id % 3 === 2)).toEqual([]);
    expect(new Set(taken).size).toBe(200);
  });

  it('keeps the form over one database as it was, which refuses a row of a class', async () => {
    const bizTag = await spread(10);
    const one = new SegmentGenerator(dbs[0]!, { bizTag });
    open.push(one);
    await expectSheafRejection(one.start(), 'SEGMENT_CLASS_MISMATCH', 'residue class 0 mod 3', 'alloc');
    await expectSheafRejection(allocPlain(dbs[1]!, bizTag), 'SEGMENT_CLASS_MISMATCH');
    // An array of one database is class 0 mod 1, a segment of one database.
    const single = `single_${++tags}`;
    await createSegment(dbs[0]!, single, 10);
    const alone = generator([dbs[0]!], { bizTag: single });
    expect(await alone.next()).toBe(1);
    expect(alone.databases()).toMatchObject([{ index: 0, remainder: 0, delta: 1, up: true, segments: 1 }]);
  });

  // A server that refuses connections: a port nothing listens on (not a mock: the driver really connects).
  it.skipIf(target === 'pglite')(
    'a database down at start() is skipped; with every database down, start() ends in SEGMENT_UNAVAILABLE',
    async () => {
      const bizTag = await spread(10);
      const dead = await deadDatabase(target);
      try {
        const options = {
          bizTag,
          dynamicStep: false,
          waitTimeoutMs: 1000,
          queryTimeoutMs: 500,
          retry: { minMs: 50, maxMs: 50 },
        };
        const ids = await generator([dbs[0]!, dbs[1]!, dead.executor], options).start();
        const taken: number[] = [];
        while (taken.length < 100) taken.push(ids.nextSync() ?? (await ids.next()));
        expect(taken.filter((id) => id % 3 === 2)).toEqual([]);
        expect(new Set(taken).size).toBe(100);
        expect(ids.databases()[2]).toMatchObject({ up: false, segments: 0 });
        expect(ids.databases()[2]!.lastError).toMatch(/ECONNREFUSED|connect/);
        const none = generator([dead.executor, dead.executor], { ...options, bizTag });
        await expectSheafRejection(none.start(), 'SEGMENT_UNAVAILABLE', `segment '${bizTag}'`, 'within 1000 ms');
      } finally {
        await Promise.all(open.splice(0).map((made) => made.close()));
        await dead.close();
      }
    },
  );

  it('refuses an empty array or a member that is no database', () => {
    expectSheafError(() => new SegmentGenerator([], { bizTag: 'x' }), 'INVALID_ARGUMENT', '1 to 1024 databases, not 0');
    expectSheafError(
      () => new SegmentGenerator([dbs[0]!, 42 as unknown as SqlExecutor], { bizTag: 'x' }),
      'INVALID_ARGUMENT',
      'database 1',
    );
  });
});
