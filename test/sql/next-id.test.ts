import { decodeId, idCeiling, idFloor, install, isSheafError, layoutByName, type SqlExecutor } from '@sheaf/core';
import { beforeAll, describe, expect, it } from 'vitest';
import vectors from '../fixtures/vectors.json' with { type: 'json' };
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, idsOf, pgClock } from '../support/pg-clock.js';
import { seededRandom } from '../support/random.js';
import { referenceGeneratorSql } from '../support/reference-generator.js';

async function configure(executor: SqlExecutor, layoutName: string, shard = 0): Promise<void> {
  const layout = layoutByName(layoutName);
  await executor.query('select sheaf.configure($1, $2, $3, $4, $5, $6, true)', [
    shard,
    layout.name,
    layout.epoch,
    layout.timeBits,
    layout.shardBits,
    layout.sequenceBits,
  ]);
}

/** Runs `work` on one session whose test clock is frozen at `ms`, and always unfreezes it. */
async function withClock<T>(
  executor: SqlExecutor,
  ms: number | null,
  work: (session: SqlExecutor) => Promise<T>,
  offset = 0,
): Promise<T> {
  return executor.session(async (session) => {
    await pgClock.set(session, ms);
    await pgClock.offset(session, offset);
    try {
      return await work(session);
    } finally {
      await pgClock.reset(session);
    }
  });
}

/** Moves the generator's state back to `session`'s clock (sheaf._test_reset, test installs only). */
async function resetState(session: SqlExecutor): Promise<void> {
  await session.query('select sheaf._test_reset()');
}

/** The generator's two sequences as stored, to prove a refused call moved neither. */
async function generatorState(executor: SqlExecutor): Promise<unknown[]> {
  return executor.query(
    `select 'counter' as name, last_value::text, is_called from sheaf.counter
     union all select 'block', last_value::text, is_called from sheaf.block`,
  );
}

async function take(executor: SqlExecutor, count: number, fn = 'sheaf.next_id()'): Promise<bigint[]> {
  return idsOf(await executor.query<{ id: unknown }>(`select ${fn} as id from generate_series(1, ${count})`));
}

describeGeneratorPaths(
  'sheaf.next_id and friends',
  (db, target, path) => {
    const sql = () => db().executor;

    beforeAll(async () => {
      await install(sql(), { testClock: true, ...path.install(target) });
      await expectGeneratorPath(sql(), path);
    });

    describe('shared vectors', () => {
      for (const layoutName of [...new Set(vectors.map((vector) => vector.layout))]) {
        it(`decode and encode agree with the vectors of ${layoutName}`, async () => {
          await configure(sql(), layoutName);
          for (const vector of vectors.filter((candidate) => candidate.layout === layoutName)) {
            const [row] = await sql().query<Record<string, unknown>>(
              `select d.created_at, d.shard_id, d.sequence,
                 sheaf.encode_id($2::timestamptz, $3, $4)::text as encoded,
                 sheaf.id_floor($2::timestamptz)::text as floor, sheaf.id_ceiling($2::timestamptz)::text as ceiling
               from sheaf.decode_id($1::bigint) d`,
              [vector.id, vector.time, vector.shardId, vector.sequence],
            );
            const layout = layoutByName(layoutName);
            expect(new Date(row?.created_at as Date).getTime(), vector.id).toBe(vector.ms);
            expect(row?.shard_id).toBe(vector.shardId);
            expect(row?.sequence).toBe(vector.sequence);
            expect(row?.encoded).toBe(vector.id);
            expect(row?.floor).toBe(String(idFloor(vector.ms, layout)));
            expect(row?.ceiling).toBe(String(idCeiling(vector.ms, layout)));
          }
        });
      }
    });

    describe('one session', () => {
      beforeAll(async () => {
        await configure(sql(), 'sheaf', 7);
      });

      it('issues increasing ids that decode to now and the configured shard', async () => {
        const before = Date.now();
        const ids = await take(sql(), 2000);
        const after = Date.now();
        expectIncreasing(ids);
        for (const id of [ids[0]!, ids.at(-1)!]) {
          const decoded = decodeId(id);
          expect(decoded.shardId).toBe(7);
          // Borrowing may push a burst a few milliseconds ahead, never behind the clock.
          expect(decoded.ms).toBeGreaterThanOrEqual(before - 1);
          expect(decoded.ms).toBeLessThanOrEqual(after + 10);
        }
      });

      it('lets id_floor and id_ceiling bound a time range through the primary key', async () => {
        await sql().query('create table events (id bigint primary key default sheaf.next_id(), n integer)');
        await sql().query('insert into events (n) select g from generate_series(1, 2000) g');
        const plan = await sql().session(async (session) => {
          // 2,000 rows are few enough that a sequential scan may be cheaper: rule it out to see the index.
          await session.query('set enable_seqscan = off');
          try {
            const rows = await session.query<{ plan: unknown }>(
              `explain (format json) select * from events
               where id between sheaf.id_floor(now() - interval '1 hour') and sheaf.id_ceiling(now())`,
            );
            return JSON.stringify(rows[0]);
          } finally {
            await session.query('reset enable_seqscan');
          }
        });
        // The bounds inline to expressions on `id` that the primary key's index takes as scan keys.
        expect(plan).toMatch(/"Node Type":"(Index|Index Only|Bitmap Index) Scan"/);
        expect(plan).toContain('"Index Name":"events_pkey"');
        expect(plan).toMatch(/"Index Cond":"\(\(id >= .+\) AND \(id <= .+\)\)"/);
        expect(plan).not.toContain('id_floor');
        const [count] = await sql().query<{ n: string }>(
          `select count(*) as n from events
           where id between sheaf.id_floor(now() - interval '1 hour') and sheaf.id_ceiling(now() + interval '1 minute')`,
        );
        expect(Number(count?.n)).toBe(2000);
      });

      it('is volatile to the planner: evaluated for every row, never once as an index condition', async () => {
        // The PL/pgSQL body is declared stable (version 21); the expression next_id() inlines must
        // not be, or the planner would evaluate it once as an index condition.
        const plan = await sql().session(async (session) => {
          await session.query('set enable_seqscan = off');
          try {
            const rows = await session.query(`explain (format json) select * from events where id = sheaf.next_id()`);
            return JSON.stringify(rows[0]);
          } finally {
            await session.query('reset enable_seqscan');
          }
        });
        expect(plan).not.toContain('Index Cond');
        expect(plan).toMatch(/"Filter":"\(id = .*next_id\(/);
      });

      it('borrows the following milliseconds when one millisecond is asked for 5,000 ids', async () => {
        const t0 = Date.now();
        const { ids, batch } = await withClock(sql(), t0, async (session) => {
          // Earlier tests ran the state ahead; a frozen clock behind the last block would just continue it.
          await resetState(session);
          return {
            ids: await take(session, 5000),
            batch: idsOf(await session.query<{ id: unknown }>('select sheaf.next_ids(5000) as id')),
          };
        });
        expectIncreasing([...ids, ...batch]);
        expect(expectDistinct([...ids, ...batch])).toBe(10_000);
        expect(decodeId(ids[0]!).ms).toBe(t0);
        expect(decodeId(ids[1023]!).sequence).toBe(1023);
        expect(decodeId(ids[1024]!)).toMatchObject({ ms: t0 + 1, sequence: 0 });
        expect(decodeId(batch.at(-1)!).ms).toBeLessThanOrEqual(t0 + Math.ceil(10_000 / 1024) + 1);
      });

      it('opens a block 7 ms ahead when the last one ended less than 8 ms before, at the clock otherwise', async () => {
        const t0 = Date.now();
        const { opened, burst } = await withClock(sql(), t0, async (session) => {
          // Quiet: the last block ended 9 ms before t0.
          await resetState(session);
          const opened: number[] = [];
          for (const clock of [0, 0, 1, 8, 9, 25, 33]) {
            await pgClock.set(session, t0 + clock);
            opened.push(decodeId((await take(session, 1))[0]!).ms - t0);
          }
          // A burst in a hot block borrows the millisecond after it, as in any other block.
          return { opened, burst: await take(session, 1100) };
        });
        // 0: quiet; 8: the block of 0 ended 1 ms before; 16: that of 8 likewise; 25: that of 16
        // ended 9 ms before, quiet; 40: that of 25 ended 8 ms before.
        expect(opened).toEqual([0, 0, 8, 8, 16, 25, 40]);
        expect(decodeId(burst[0]!)).toMatchObject({ ms: t0 + 40, sequence: 1 });
        expect(decodeId(burst.at(-1)!)).toMatchObject({ ms: t0 + 41, sequence: 1100 - 1023 - 1 });
        expectIncreasing(burst);
      });

      it('continues above the last id when the clock steps back 5 s', async () => {
        await withClock(sql(), null, async (session) => {
          await resetState(session);
          const started = Date.now();
          const before = await take(session, 500);
          // The state follows the real clock, so the step below is one the generator really sees.
          expect(decodeId(before[0]!).ms).toBeGreaterThanOrEqual(started - 1);
          expect(decodeId(before.at(-1)!).ms).toBeLessThanOrEqual(Date.now() + 10);
          await pgClock.offset(session, -5000);
          const stepped = Date.now() - 5000;
          const after = await take(session, 500);
          expectIncreasing([...before, ...after]);
          expect(expectDistinct([...before, ...after])).toBe(1000);
          // Ids of the stepped clock would be 5 s behind; they continue from the last block instead.
          expect(decodeId(after[0]!).ms).toBeGreaterThanOrEqual(decodeId(before.at(-1)!).ms);
          expect(decodeId(after[0]!).ms).toBeGreaterThan(stepped + 4000);
        });
      });

      it('hands out small and large batches and durable forms without overlap', async () => {
        const small = idsOf(await sql().query<{ id: unknown }>('select sheaf.next_ids(10) as id'));
        await sql().query('select sheaf.add_shard(9)');
        const large = idsOf(await sql().query<{ id: unknown }>('select sheaf.next_ids(3000, 9) as id'));
        const durable = idsOf(await sql().query<{ id: unknown }>('select sheaf.next_ids_durable(700) as id'));
        const single = idsOf(await sql().query<{ id: unknown }>('select sheaf.next_id_durable() as id'));
        expect(small).toHaveLength(10);
        expect(large).toHaveLength(3000);
        expect(durable).toHaveLength(700);
        expectIncreasing([...small, ...large, ...durable, ...single]);
        expect(decodeId(large[0]!).shardId).toBe(9);
        expect(decodeId(single[0]!).shardId).toBe(7);
      });

      it('matches the always-locked reference model under a scripted clock', async () => {
        for (const statement of referenceGeneratorSql) await sql().query(statement);
        const random = seededRandom(20261122);
        await withClock(sql(), null, async (session) => {
          let clock = Date.now();
          await pgClock.set(session, clock);
          // Both generators begin from the same clean slate: the state at the scripted clock.
          await resetState(session);
          const [first] = await take(session, 1);
          await session.query('update sheaf_reference set last_tick = $1, seq = $2', [
            String(first! >> 22n),
            Number(first! & 1023n),
          ]);
          for (let step = 0; step < 40; step++) {
            clock += random.int(-8, 8);
            const count = random.int(0, 4) === 0 ? random.int(1000, 2600) : random.int(1, 40);
            await pgClock.set(session, clock);
            const rows = await session.query<{ ours: string; reference: string }>(
              `select sheaf.next_id() as ours, sheaf_reference_next_id(7, 12, 10, 1704067200000) as reference
               from generate_series(1, $1)`,
              [count],
            );
            expect(rows).toHaveLength(count);
            for (const [i, row] of rows.entries()) {
              expect(row.ours, `step ${step}, id ${i} at clock ${clock}`).toBe(row.reference);
            }
          }
        });
      });
    });

    describe('errors', () => {
      it('refuses a shard outside the layout, naming it', async () => {
        await expectSheafRejection(sql().query('select sheaf.next_id(5000)'), 'SHARD_OUT_OF_RANGE', '5000', '4095');
        await expectSheafRejection(sql().query('select sheaf.next_id(-1)'), 'SHARD_OUT_OF_RANGE', '-1');
        await expectSheafRejection(sql().query('select * from sheaf.next_ids(5, 4096)'), 'SHARD_OUT_OF_RANGE', '4096');
        await expectSheafRejection(sql().query('select sheaf.configure(4096)'), 'SHARD_OUT_OF_RANGE', '4096');
      });

      it('refuses a batch size below 1 or above 1,000,000', async () => {
        await expectSheafRejection(sql().query('select * from sheaf.next_ids(0)'), 'INVALID_ARGUMENT', 'not 0');
        await expectSheafRejection(sql().query('select * from sheaf.next_ids(-3)'), 'INVALID_ARGUMENT', '-3');
        await expectSheafRejection(sql().query('select * from sheaf.next_ids(null)'), 'INVALID_ARGUMENT', 'null');
        await expectSheafRejection(
          sql().query('select * from sheaf.next_ids_durable(1000001)'),
          'INVALID_ARGUMENT',
          '1000001',
          '1000000',
        );
      });

      it('refuses _open_block(n) outside 0 to 1,000,000 before it moves the state', async () => {
        await take(sql(), 1);
        const state = await generatorState(sql());
        for (const n of ['-1', '1000001', '2147483647', 'null']) {
          await expectSheafRejection(
            sql().query(`select sheaf._open_block(${n})`),
            'INVALID_ARGUMENT',
            `not ${n}`,
            '1000000',
          );
        }
        expect(await generatorState(sql())).toEqual(state);
      });

      it('maps wrong-type arguments of sheaf functions to INVALID_ARGUMENT', async () => {
        const refusals: [string, unknown[], ...string[]][] = [
          ["select sheaf.next_id('x')", [], 'sheaf.next_id', '"x"'],
          ["select sheaf.next_id('99999999999')", [], '99999999999', 'integer arguments are at most 2147483647'],
          ["select * from sheaf.decode_id('99999999999999999999')", [], 'sheaf.decode_id', '9223372036854775807'],
          ['select sheaf.next_id($1)', ['abc'], 'sheaf.next_id', '"abc"'],
          ['select * from sheaf.next_ids($1::integer)', ['1.5'], 'sheaf.next_ids', '"1.5"'],
          ["select * from sheaf.decode_id(sheaf.next_id(), 'x')", [], 'sheaf.decode_id', '(bigint, unknown)'],
          ['select * from sheaf.next_ids(1.5)', [], 'sheaf.next_ids', '(numeric)'],
          ['select sheaf.next_id(99999999999)', [], 'sheaf.next_id', '(bigint)'],
        ];
        for (const [text, params, ...fragments] of refusals) {
          await expectSheafRejection(sql().query(text, params), 'INVALID_ARGUMENT', ...fragments);
        }
        // A bad value outside a sheaf call stays the driver's error.
        const other = await sql()
          .query("select sheaf.next_id(), 'x'::integer")
          .catch((error: unknown) => error);
        expect(isSheafError(other)).toBe(false);
        expect((other as { code?: string }).code).toBe('22P02');
      });

      it('refuses ids and times outside the layout', async () => {
        await expectSheafRejection(sql().query('select * from sheaf.decode_id(-1)'), 'ID_OUT_OF_RANGE', '-1');
        await expectSheafRejection(
          sql().query("select sheaf.id_floor('2020-01-01T00:00:00Z')"),
          'TIME_BEFORE_EPOCH',
          '2020-01-01T00:00:00.000Z',
        );
        await expectSheafRejection(
          sql().query("select sheaf.id_ceiling('2100-01-01T00:00:00Z')"),
          'TIME_EXHAUSTED',
          '2093-09-06T15:47:35.551Z',
        );
        await expectSheafRejection(
          sql().query("select sheaf.encode_id('2025-01-01', 1, 1024)"),
          'SEQUENCE_OUT_OF_RANGE',
          '1024',
        );
      });

      it('refuses to change the layout once ids were issued, but allows a new shard', async () => {
        await expectSheafRejection(
          sql().query("select sheaf.configure(7, 'twitter', 1288834974657, 41, 10, 12, true)"),
          'LAYOUT_LOCKED',
          'twitter',
        );
        await configure(sql(), 'sheaf', 8);
        const [row] = await sql().query<{ shard_id: number }>('select (sheaf.decode_id(sheaf.next_id())).shard_id');
        expect(row?.shard_id).toBe(8);
      });

      it('refuses an invalid layout and a layout name that is not a plain word', async () => {
        await expectSheafRejection(
          sql().query("select sheaf.configure(0, 'big', 0, 50, 10, 10, true)"),
          'INVALID_LAYOUT',
          '50 time',
        );
        await expectSheafRejection(
          sql().query("select sheaf.configure(0, 'x''; drop table y; --', 0, 41, 12, 10, true)"),
          'INVALID_LAYOUT',
          'drop table',
        );
      });

      it('raises a coded error when the time field is exhausted, naming the date', async () => {
        await sql().session(async (session) => {
          await pgClock.set(session, Date.parse('2093-09-06T15:47:35.552Z'));
          await expectSheafRejection(
            session.query('select sheaf.next_id()'),
            'TIME_EXHAUSTED',
            '2093-09-06T15:47:35.551Z',
          );
          await pgClock.set(session, Date.parse('2023-12-31T00:00:00Z'));
          await pgClock.reset(session);
        });
      });
    });
  },
  { only: ['postgres', 'pglite'] },
);
