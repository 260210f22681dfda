import { decodeId, install, layoutByName, presets, type SqlExecutor } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { nextIds } from '../support/mysql-calls.js';
import { queryState } from '../support/state-sql.js';

const maxPerMs = 1024;

async function one(executor: SqlExecutor): Promise<bigint> {
  const [row] = await executor.query<{ id: string }>('select sheaf_next_id() as id');
  return BigInt(String(row?.id));
}

const tickOf = (id: bigint) => decodeId(id, presets.sheaf).ms;

describeTargets(
  'sheaf_next_id() on MySQL/MariaDB',
  (db) => {
    it('installs with a test clock and issues ids of the configured shard', async () => {
      await install(db().executor, { shard: 7, testClock: true });
      const id = await one(db().executor);
      expect(decodeId(id, presets.sheaf).shardId).toBe(7);
      expect(Math.abs(tickOf(id) - Date.now())).toBeLessThan(5_000);
    });

    it('16 connections × 50,000 ids: no duplicate, increasing within each connection', async () => {
      const sessions = await db().sessions(16);
      const perSession = await Promise.all(
        sessions.map(async (session) => {
          const ids: bigint[] = [];
          for (let i = 0; i < 10; i++) ids.push(...(await nextIds(session, 5_000)));
          return ids;
        }),
      );
      for (const ids of perSession) {
        for (let i = 1; i < ids.length; i++) expect((ids[i] as bigint) > (ids[i - 1] as bigint)).toBe(true);
      }
      const all = perSession.flat();
      expect(all).toHaveLength(800_000);
      expect(new Set(all).size).toBe(all.length);
    });

    it(`borrows the next millisecond instead of wrapping when ${maxPerMs * 5} ids share a frozen one`, async () => {
      await db().executor.session(async (session) => {
        const frozen = Date.now() + 60_000;
        await session.query('set @sheaf_clock_ms = ?', [frozen]);
        const ids = await nextIds(session, maxPerMs * 5);
        await session.query('set @sheaf_clock_ms = null');
        expect(new Set(ids).size).toBe(ids.length);
        const ticks = new Set(ids.map(tickOf));
        expect(ticks.size).toBeGreaterThanOrEqual(5);
        expect(Math.min(...ticks)).toBeGreaterThanOrEqual(frozen);
      });
    });

    it('continues above the last id when the clock steps back 5 s', async () => {
      await db().executor.session(async (session) => {
        const before = await nextIds(session, 3_000);
        await session.query('set @sheaf_clock_offset_ms = -5000');
        const after = await nextIds(session, 3_000);
        await session.query('set @sheaf_clock_offset_ms = null');
        const last = before.reduce((a, b) => (a > b ? a : b));
        for (const id of after) expect(id > last).toBe(true);
      });
      // Another session, its own clock stepped back, also stays above everything issued.
      const [other] = await db().sessions(1);
      const issued = await one(db().executor);
      await other?.query('set @sheaf_clock_offset_ms = -5000');
      expect(await one(other as SqlExecutor)).toBeGreaterThan(issued);
      await other?.query('set @sheaf_clock_offset_ms = null');
    });

    it('a transaction that inserted rows and stays open blocks no other session', async () => {
      await db().executor.query('create table held (id bigint primary key)');
      const holder = await db().connect();
      try {
        await holder.executor.query('start transaction');
        await holder.executor.query('insert into held select id from (select sheaf_next_id() as id) t');
        await nextIds(holder.executor, 2_000);
        const others = await db().sessions(4);
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('blocked by the open transaction')), 5_000),
        );
        const work = Promise.all(
          others.map(async (session) => {
            await session.query('set innodb_lock_wait_timeout = 3');
            const ids = await nextIds(session, 5_000);
            await session.query('insert into held values (?)', [String(await one(session))]);
            return ids.length;
          }),
        );
        expect(await Promise.race([work, timeout])).toEqual([5_000, 5_000, 5_000, 5_000]);
      } finally {
        await holder.executor.query('rollback');
        await holder.close();
      }
    });

    it('never reuses ids taken in a rolled-back transaction', async () => {
      const session = (await db().sessions(1))[0] as SqlExecutor;
      await session.query('start transaction');
      const rolledBack = await nextIds(session, 300);
      await session.query('rollback');
      await session.query('set @sheaf_id_next = null');
      const after = await nextIds(session, 300);
      expect(after[0]).toBeGreaterThan(rolledBack.at(-1) as bigint);
    });

    it('sheaf_next_shard_id(shard) issues for a shard added to the database, unique with the rest', async () => {
      await expectSheafRejection(
        db().executor.query('select sheaf_next_shard_id(4095)'),
        'SHARD_NOT_OWNED',
        'shard 4095',
        'sheaf_add_shard(4095)',
      );
      await queryState(db().executor, 'call {state}.sheaf_add_shard(4095)');
      const [row] = await db().executor.query<{ a: string; b: string }>(
        'select sheaf_next_shard_id(4095) as a, sheaf_next_id() as b',
      );
      expect(decodeId(String(row?.a), presets.sheaf).shardId).toBe(4095);
      expect(row?.a).not.toBe(row?.b);
    });

    it('refuses bad input with coded errors', async () => {
      const sql = db().executor;
      await expectSheafRejection(sql.query('select sheaf_next_shard_id(4096)'), 'SHARD_OUT_OF_RANGE', 'max 4095');
      await expectSheafRejection(sql.query('select sheaf_next_shard_id(-1)'), 'SHARD_OUT_OF_RANGE', '-1');
      await expectSheafRejection(sql.query('call sheaf_next_ids(0)'), 'INVALID_ARGUMENT', 'not 0');
      await expectSheafRejection(sql.query('call sheaf_next_ids(null)'), 'INVALID_ARGUMENT', 'null');
      await expectSheafRejection(sql.query('select sheaf_decode_id(-5)'), 'ID_OUT_OF_RANGE', '-5');
      await expectSheafRejection(sql.query("select sheaf_id_floor('2023-12-31 23:59:59.999')"), 'TIME_BEFORE_EPOCH');
      await expectSheafRejection(sql.query("select sheaf_id_floor('2093-09-06 15:47:35.552')"), 'TIME_EXHAUSTED');
      await expectSheafRejection(
        sql.query("select sheaf_encode_id('2024-01-01', 0, 1024)"),
        'SEQUENCE_OUT_OF_RANGE',
        'max 1023',
      );
      await expectSheafRejection(
        sql.session(async (session) => {
          await session.query('set @sheaf_clock_ms = 1000, @sheaf_id_next = null');
          return session.query('select sheaf_next_id()');
        }),
        'TIME_BEFORE_EPOCH',
        '1970-01-01T00:00:01.000Z',
      );
    });

    it('refuses to change the layout once ids were issued, but changes the shard', async () => {
      await expectSheafRejection(install(db().executor, { layout: 'twitter' }), 'LAYOUT_LOCKED', 'twitter');
      await install(db().executor, { shard: 9, testClock: true });
      const session = (await db().sessions(1))[0] as SqlExecutor;
      await session.query('set @sheaf_id_next = null');
      expect(decodeId(await one(session), presets.sheaf).shardId).toBe(9);
      await expectSheafRejection(
        queryState(db().executor, "call {state}.sheaf_configure(0, 'Bad Name', 0, 41, 12, 10, false)"),
        'INVALID_LAYOUT',
      );
      await expectSheafRejection(
        queryState(db().executor, "call {state}.sheaf_configure(0, 'big', 0, 41, 13, 11, false)"),
        'INVALID_LAYOUT',
      );
    });

    it('reaches the end of the layout with TIME_EXHAUSTED, never a wrapped id', async () => {
      const lastMs = layoutByName('sheaf').lastMs;
      await expectSheafRejection(
        db().executor.session(async (session) => {
          await session.query('set @sheaf_clock_ms = ?, @sheaf_id_next = null', [lastMs + 1]);
          return session.query('select sheaf_next_id()');
        }),
        'TIME_EXHAUSTED',
      );
    });
  },
  { only: ['mariadb'] },
);
