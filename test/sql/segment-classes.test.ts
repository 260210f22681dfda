import { install, type SqlExecutor, sqlVersion, uninstall } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createSegment } from '../support/generator-sql.js';
import {
  allocClass,
  allocPlain,
  classMaxId,
  createSegmentClass,
  type Range,
  segmentClass,
} from '../support/segment-classes.js';

const maxBigint = 9223372036854775807n;

/** The ids of a range of class `delta`: first, first + delta, …, last. */
const idsOf = ({ first, last }: Range, delta: number) =>
  Array.from({ length: Number((last - first) / BigInt(delta)) + 1 }, (_, i) => first + BigInt(i * delta));

// The SQL of sql/postgres/0011_segment_classes.sql and sql/mysql/0008_segment_classes.sql.
describeTargets('segment rows of a residue class (create_segment_class, alloc_segment_class)', (db, target) => {
  const sql = () => db().executor;

  beforeAll(async () => {
    await install(sql());
  });

  it('takes `step` ids of the class per call: max_id moves by step × delta, the first id is the class’s first above it', async () => {
    await createSegmentClass(sql(), 'orders', 3, 1, 10);
    expect(await segmentClass(sql(), 'orders')).toEqual({ delta: 3, remainder: 1 });
    expect(await allocClass(sql(), 'orders', null, 3, 1)).toEqual({ first: 1n, last: 28n });
    expect(await allocClass(sql(), 'orders', 5, 3, 1)).toEqual({ first: 31n, last: 43n });
    expect(await classMaxId(sql(), 'orders')).toBe(45n);
    // A max_id that is not a multiple of delta: the first id is still of the class.
    await createSegmentClass(sql(), 'odd-start', 4, 3, 2, 5n);
    expect(await allocClass(sql(), 'odd-start', null, 4, 3)).toEqual({ first: 7n, last: 11n });
    await createSegmentClass(sql(), 'zero', 2, 0, 3);
    expect(await allocClass(sql(), 'zero', null, 2, 0)).toEqual({ first: 2n, last: 6n });
  });

  it('is idempotent for the same class and step, and refuses another class with NAME_TAKEN naming both', async () => {
    await createSegmentClass(sql(), 'again', 2, 1, 50);
    await allocClass(sql(), 'again', null, 2, 1);
    await createSegmentClass(sql(), 'again', 2, 1, 50);
    await expectSheafRejection(
      createSegmentClass(sql(), 'again', 2, 0, 50),
      'NAME_TAKEN',
      "segment 'again' already exists with class 1 mod 2, step 50 and max_id 100, not class 0 mod 2, step 50 and max_id 0",
    );
    await createSegment(sql(), 'plain', 50);
    await expectSheafRejection(createSegmentClass(sql(), 'plain', 2, 0, 50), 'NAME_TAKEN', 'class 0 mod 1');
  });

  it('refuses another class than the row’s (SEGMENT_CLASS_MISMATCH), and alloc_segment refuses a row of a class', async () => {
    await createSegmentClass(sql(), 'mine', 3, 2, 10);
    await expectSheafRejection(
      allocClass(sql(), 'mine', null, 3, 1),
      'SEGMENT_CLASS_MISMATCH',
      "segment 'mine' is residue class 2 mod 3 in this database, not 1 mod 3",
    );
    await expectSheafRejection(allocClass(sql(), 'mine', null, 2, 0), 'SEGMENT_CLASS_MISMATCH', 'not 0 mod 2');
    await expectSheafRejection(allocPlain(sql(), 'mine'), 'SEGMENT_CLASS_MISMATCH', 'residue class 2 mod 3');
    // Nothing moved.
    expect(await classMaxId(sql(), 'mine')).toBe(0n);
    // A row of one database is class 0 mod 1: both functions serve it, with the same ranges.
    await createSegment(sql(), 'single', 10);
    expect(await allocPlain(sql(), 'single')).toEqual({ first: 1n, last: 10n });
    expect(await allocClass(sql(), 'single', null, 1, 0)).toEqual({ first: 11n, last: 20n });
  });

  it('allocates up to the largest bigint, then SEGMENT_EXHAUSTED; UNKNOWN_SEGMENT and INVALID_ARGUMENT name the value', async () => {
    await createSegmentClass(sql(), 'edge', 3, 0, 10, maxBigint - 7n);
    // 9223372036854775807 ≡ 1 (mod 3): the class-0 ids above max_id are …803 and …806.
    expect(await allocClass(sql(), 'edge', 2, 3, 0)).toEqual({ first: maxBigint - 4n, last: maxBigint - 1n });
    await expectSheafRejection(
      allocClass(sql(), 'edge', 1, 3, 0),
      'SEGMENT_EXHAUSTED',
      `max_id ${maxBigint - 1n} + step 1 * delta 3 exceeds ${maxBigint}`,
    );
    await expectSheafRejection(allocClass(sql(), 'nope', null, 2, 0), 'UNKNOWN_SEGMENT', "unknown segment 'nope'");
    await expectSheafRejection(segmentClass(sql(), 'nope'), 'UNKNOWN_SEGMENT', "unknown segment 'nope'");
    for (const [delta, remainder, fragment] of [
      [0, 0, 'residue class 0 mod 0'],
      [3, 3, 'residue class 3 mod 3'],
      [3, -1, 'residue class -1 mod 3'],
      [null, 0, 'residue class 0 mod null'],
    ] as const) {
      await expectSheafRejection(allocClass(sql(), 'edge', 1, delta, remainder), 'INVALID_ARGUMENT', fragment);
      await expectSheafRejection(
        createSegmentClass(sql(), 'bad', delta as number, remainder, 10),
        'INVALID_ARGUMENT',
        fragment,
      );
    }
    await expectSheafRejection(
      allocClass(sql(), 'edge', 0, 3, 0),
      'INVALID_ARGUMENT',
      'step must be at least 1, not 0',
    );
  });

  // PGlite is one connection: concurrency needs a server.
  it.skipIf(target === 'pglite')(
    '8 sessions × 30 allocations of one class never overlap and leave no gap in it',
    async () => {
      await createSegmentClass(sql(), 'shared', 3, 1, 7);
      const sessions = await db().sessions(8);
      const ranges = (
        await Promise.all(
          sessions.map(async (session, index) => {
            const mine: Range[] = [];
            for (let i = 0; i < 30; i++) mine.push(await allocClass(session, 'shared', index % 2 ? null : 1 + i, 3, 1));
            return mine;
          }),
        )
      ).flat();
      const ids = ranges.flatMap((range) => idsOf(range, 3)).sort((a, b) => (a < b ? -1 : 1));
      expect(ids.every((id) => id % 3n === 1n)).toBe(true);
      // Every id of the class from 1 up to the last, each once.
      expect(ids).toEqual(ids.map((_, i) => 1n + 3n * BigInt(i)));
      expect(await classMaxId(sql(), 'shared')).toBe(ids.at(-1)! + 2n);
    },
  );
});

/** The real executor, except that it fails right after the server ran the statement matching `at`. */
function failingAfter(executor: SqlExecutor, at: RegExp): SqlExecutor {
  const wrap = (inner: SqlExecutor): SqlExecutor => ({
    dialect: inner.dialect,
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const rows = await inner.query<R>(sql, params);
      if (at.test(sql)) throw new Error(`injected failure after ${sql.slice(0, 60)}`);
      return rows;
    },
    session: (fn) => inner.session((session) => fn(wrap(session))),
  });
  return wrap(executor);
}

describeTargets('upgrading to segment classes (PostgreSQL 0011, MySQL 0008)', (db, target) => {
  const previous = target === 'mariadb' ? 7 : 10;

  it('rows of before the upgrade are segments of one database (class 0 of 1) and keep their ranges', async () => {
    await uninstall(db().executor, { force: true });
    await install(db().executor, { upTo: previous });
    await createSegment(db().executor, 'old', 10);
    expect(await allocPlain(db().executor, 'old')).toEqual({ first: 1n, last: 10n });
    await install(db().executor);
    expect(await segmentClass(db().executor, 'old')).toEqual({ delta: 1, remainder: 0 });
    expect(await allocPlain(db().executor, 'old')).toEqual({ first: 11n, last: 20n });
  });

  // MySQL commits each DDL statement: a file that failed half-way is applied again by the next install.
  it.skipIf(target !== 'mariadb')(
    '0008 stopped right after dropping sheaf_alloc_segment is repaired by the next install',
    async () => {
      await uninstall(db().executor, { force: true });
      await install(db().executor, { upTo: 7 });
      await createSegment(db().executor, 'kept', 10);
      const failing = failingAfter(db().executor, /^drop procedure if exists sheaf_alloc_segment;?$/m);
      await expect(install(failing)).rejects.toThrow(/injected failure/);
      await expectSheafRejection(allocPlain(db().executor, 'kept'), 'NOT_INSTALLED');
      const rest = Array.from({ length: sqlVersion('mysql') - 7 }, (_, i) => i + 8);
      expect((await install(db().executor)).applied).toEqual(rest);
      expect(await allocPlain(db().executor, 'kept')).toEqual({ first: 1n, last: 10n });
      await createSegmentClass(db().executor, 'spread', 2, 1, 10);
      expect(await allocClass(db().executor, 'spread', null, 2, 1)).toEqual({ first: 1n, last: 19n });
    },
  );
});
