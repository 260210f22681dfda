import { install, type SqlExecutor } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { seededRandom } from '../support/random.js';

const maxBigint = 9223372036854775807n;

interface Range {
  first: bigint;
  last: bigint;
}

async function alloc(executor: SqlExecutor, tag: string | null, step?: number | null): Promise<Range> {
  const rows = await executor.query<{ first_id: string; last_id: string }>(
    step === undefined
      ? 'select first_id::text, last_id::text from sheaf.alloc_segment($1)'
      : 'select first_id::text, last_id::text from sheaf.alloc_segment($1, $2)',
    step === undefined ? [tag] : [tag, step],
  );
  expect(rows).toHaveLength(1);
  return { first: BigInt(rows[0]!.first_id), last: BigInt(rows[0]!.last_id) };
}

const create = (executor: SqlExecutor, tag: unknown, step: unknown = 1000, maxId: unknown = '0', description = null) =>
  executor.query('select sheaf.create_segment($1, $2, $3::bigint, $4)', [tag, step, maxId, description]);

async function stored(executor: SqlExecutor, tag: string) {
  const [row] = await executor.query<{ max_id: string; step: number; description: string | null; updated_at: Date }>(
    'select max_id::text, step, description, updated_at from sheaf.segments where biz_tag = $1',
    [tag],
  );
  return row;
}

describeTargets(
  'sheaf.create_segment and sheaf.alloc_segment',
  (db) => {
    const sql = () => db().executor;

    beforeAll(async () => {
      await install(sql());
    });

    it('allocates consecutive ranges of the stored step, starting after max_id', async () => {
      await sql().query("select sheaf.create_segment('orders', description => 'order ids')");
      const before = (await stored(sql(), 'orders'))!;
      expect(await alloc(sql(), 'orders')).toEqual({ first: 1n, last: 1000n });
      expect(await alloc(sql(), 'orders')).toEqual({ first: 1001n, last: 2000n });
      const after = (await stored(sql(), 'orders'))!;
      expect(after).toMatchObject({ max_id: '2000', step: 1000, description: 'order ids' });
      expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
      await create(sql(), 'from-5000', 100, '5000');
      expect(await alloc(sql(), 'from-5000')).toEqual({ first: 5001n, last: 5100n });
    });

    it('takes a step argument for one call without changing the stored step', async () => {
      await create(sql(), 'dynamic', 10);
      expect(await alloc(sql(), 'dynamic', 5)).toEqual({ first: 1n, last: 5n });
      expect(await alloc(sql(), 'dynamic', 40)).toEqual({ first: 6n, last: 45n });
      expect(await alloc(sql(), 'dynamic', null)).toEqual({ first: 46n, last: 55n });
      expect(await stored(sql(), 'dynamic')).toMatchObject({ max_id: '55', step: 10 });
    });

    it('is idempotent for the same step, even after allocations, and refuses another definition (NAME_TAKEN)', async () => {
      await create(sql(), 'again', 50);
      await alloc(sql(), 'again');
      await create(sql(), 'again', 50);
      await create(sql(), 'again', 50, '30');
      expect(await stored(sql(), 'again')).toMatchObject({ max_id: '50', step: 50 });
      await expectSheafRejection(
        create(sql(), 'again', 60),
        'NAME_TAKEN',
        "segment 'again' already exists with step 50 and max_id 50, not step 60 and max_id 0",
      );
      await expectSheafRejection(create(sql(), 'again', 50, '51'), 'NAME_TAKEN', 'max_id 51');
      expect(await alloc(sql(), 'again')).toEqual({ first: 51n, last: 100n });
    });

    it('allocates up to the largest bigint, then raises SEGMENT_EXHAUSTED naming tag and values', async () => {
      await create(sql(), 'edge', 10, String(maxBigint - 7n));
      expect(await alloc(sql(), 'edge', 7)).toEqual({ first: maxBigint - 6n, last: maxBigint });
      await expectSheafRejection(
        alloc(sql(), 'edge', 1),
        'SEGMENT_EXHAUSTED',
        `segment 'edge' is exhausted: max_id ${maxBigint} + step 1 exceeds ${maxBigint}`,
      );
      await create(sql(), 'edge-stored', 10, String(maxBigint - 9n));
      await expectSheafRejection(
        alloc(sql(), 'edge-stored'),
        'SEGMENT_EXHAUSTED',
        `max_id ${maxBigint - 9n} + step 10`,
      );
      await expectSheafRejection(alloc(sql(), 'edge-stored', 2147483647), 'SEGMENT_EXHAUSTED', 'step 2147483647');
      expect(await stored(sql(), 'edge-stored')).toMatchObject({ max_id: String(maxBigint - 9n) });
      expect(await alloc(sql(), 'edge-stored', 9)).toEqual({ first: maxBigint - 8n, last: maxBigint });
    });

    it('raises UNKNOWN_SEGMENT naming an unknown tag and INVALID_ARGUMENT for a bad step or null tag', async () => {
      await expectSheafRejection(alloc(sql(), 'no such tag'), 'UNKNOWN_SEGMENT', "unknown segment 'no such tag'");
      await expectSheafRejection(alloc(sql(), null), 'INVALID_ARGUMENT', 'not null');
      await expectSheafRejection(alloc(sql(), 'orders', 0), 'INVALID_ARGUMENT', "segment 'orders': step", 'not 0');
      await expectSheafRejection(alloc(sql(), 'orders', -5), 'INVALID_ARGUMENT', 'not -5');
      await expectSheafRejection(alloc(sql(), 'no such tag', -5), 'INVALID_ARGUMENT', 'not -5');
    });

    it('refuses bad definitions with INVALID_ARGUMENT naming the value', async () => {
      const cases: [unknown, unknown, unknown, string][] = [
        [null, 10, '0', 'segment biz_tag must be non-empty text, not null'],
        ['', 10, '0', "segment biz_tag must be non-empty text, not ''"],
        ['bad', 0, '0', "segment 'bad': step must be at least 1, not 0"],
        ['bad', null, '0', 'step must be at least 1, not null'],
        ['bad', -1, '0', 'not -1'],
        ['bad', 10, '-1', "segment 'bad': max_id must be 0 or more, not -1"],
        ['bad', 10, null, 'max_id must be 0 or more, not null'],
      ];
      for (const [tag, step, maxId, message] of cases) {
        await expectSheafRejection(create(sql(), tag, step, maxId), 'INVALID_ARGUMENT', message);
      }
      expect(await stored(sql(), 'bad')).toBeUndefined();
    });

    it('guards the table itself: no step below 1, no negative max_id', async () => {
      for (const values of ["('direct', 0, 0)", "('direct', 10, -1)"]) {
        const error = await sql()
          .query(`insert into sheaf.segments (biz_tag, step, max_id) values ${values}`)
          .catch((caught: unknown) => caught);
        expect((error as { code?: string }).code).toBe('23514');
      }
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'segments under concurrency',
  (db) => {
    const open = (count: number) => db().sessions(count);

    beforeAll(async () => {
      await install(db().executor);
    });

    it('8 sessions × 60 allocations, some with their own step: ranges never overlap and leave no gap', async () => {
      const sessions = await open(8);
      await create(db().executor, 'shared', 100);
      const ranges = (
        await Promise.all(
          sessions.map(async (session, index) => {
            const random = seededRandom(index + 1);
            const mine: Range[] = [];
            for (let i = 0; i < 60; i++) {
              const step = random.next() < 0.5 ? undefined : random.int(1, 500);
              const range = await alloc(session, 'shared', step);
              expect(range.last - range.first + 1n).toBe(BigInt(step ?? 100));
              mine.push(range);
            }
            return mine;
          }),
        )
      ).flat();
      ranges.sort((a, b) => (a.first < b.first ? -1 : 1));
      expect(ranges[0]!.first).toBe(1n);
      for (let i = 1; i < ranges.length; i++) {
        if (ranges[i]!.first !== ranges[i - 1]!.last + 1n) {
          throw new Error(`range ${ranges[i]!.first}…${ranges[i]!.last} does not follow …${ranges[i - 1]!.last}`);
        }
      }
      expect((await stored(db().executor, 'shared'))?.max_id).toBe(String(ranges.at(-1)!.last));
    });

    it('holds the row lock until the caller commits: allocate in short transactions', async () => {
      const [a, b] = await open(2);
      await create(db().executor, 'locked', 10);
      await a!.query('begin');
      try {
        expect(await alloc(a!, 'locked')).toEqual({ first: 1n, last: 10n });
        await b!.query("set lock_timeout = '100ms'");
        const error = await alloc(b!, 'locked').catch((caught: unknown) => caught);
        expect((error as { code?: string }).code).toBe('55P03');
      } finally {
        await a!.query('commit');
        await b!.query('reset lock_timeout');
      }
      expect(await alloc(b!, 'locked')).toEqual({ first: 11n, last: 20n });
    });
  },
  { only: ['postgres'] },
);
