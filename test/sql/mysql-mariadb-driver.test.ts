import {
  decodeId,
  install,
  isSheafError,
  mariadbExecutor,
  mysql2Executor,
  presets,
  sheafTriggerSql,
} from '@sheaf/core';
import mariadb, { type Pool } from 'mariadb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { queryState } from '../support/state-sql.js';

// The same database as the suite's mysql2 pool, through the `mariadb` driver itself.
describeTargets(
  'mariadbExecutor over the mariadb driver',
  (db) => {
    let pool: Pool;
    beforeAll(() => {
      pool = mariadb.createPool(`${db().url!.replace(/^mysql:/, 'mariadb:')}?connectionLimit=4`);
    });
    afterAll(() => pool.end());

    it('reads rows, BIGINT and DECIMAL as strings, and no rows from a write', async () => {
      const executor = mariadbExecutor(pool);
      expect(await executor.query('select 1 as a')).toEqual([{ a: 1 }]);
      expect(await executor.query('select ? as a', [2])).toEqual([{ a: 2 }]);
      const [row] = await executor.query('select cast(9007199254740993 as signed) as b, 1.5 as c, count(*) as n');
      expect(row).toEqual({ b: '9007199254740993', c: '1.5', n: '1' });
      expect(await executor.query('select 1 as a from dual where 1 = 0')).toEqual([]);
      expect(await executor.query('set @sheaf_probe = 1')).toEqual([]);
    });

    it('installs, issues sheaf_next_id() and sheaf_next_ids(n) on the configured shard', async () => {
      const executor = mariadbExecutor(pool);
      await install(executor, { shard: 5 });
      const [one] = await executor.query<{ id: string }>('select sheaf_next_id() as id');
      expect(typeof one!.id).toBe('string');
      expect(decodeId(one!.id, presets.sheaf).shardId).toBe(5);
      const many = await executor.query<{ id: string }>('call sheaf_next_ids(?)', [500]);
      expect(many).toHaveLength(500);
      expect(new Set(many.map((row) => row.id)).size).toBe(500);
      expect(many.every((row) => decodeId(row.id, presets.sheaf).shardId === 5)).toBe(true);
      expect(await queryState(executor, "call {state}.sheaf_create_ticket('mdb', 1, 1)")).toEqual([]);
      const [ticket] = await executor.query<{ t: string }>("select sheaf_next_ticket('mdb') as t");
      expect(ticket).toEqual({ t: '1' });
    });

    it('the trigger fills ids; the driver insertId of a single-row insert is the sheaf id', async () => {
      const executor = mariadbExecutor(pool);
      await executor.query('create table mdb_orders (id bigint not null auto_increment primary key, v int)');
      await executor.query(sheafTriggerSql('mdb_orders', 'id').create);
      expect(await executor.query('insert into mdb_orders (v) values (?)', [1])).toEqual([]);
      const header = (await pool.query('insert into mdb_orders (v) values (2)')) as { insertId: bigint };
      const rows = await executor.query<{ id: string; v: number }>('select id, v from mdb_orders order by v');
      expect(rows.map((row) => row.v)).toEqual([1, 2]);
      expect(rows[1]!.id).toBe(header.insertId.toString());
      expect(rows.every((row) => decodeId(row.id, presets.sheaf).shardId === 5)).toBe(true);
    });

    it("maps a signalled error to a SheafError with sheaf's own message and the driver error as cause", async () => {
      const executor = mariadbExecutor(pool);
      const error = await expectSheafRejection(
        executor.query('select sheaf_next_shard_id(?) as id', [5000]),
        'SHARD_OUT_OF_RANGE',
        'shard 5000 does not fit 12 shard bits (max 4095)',
      );
      expect(error.message).toMatch(/^sheaf: shard 5000/);
      expect(error.message).not.toContain('conn:');
      expect((error.cause as { errno?: number }).errno).toBe(30001);
      const other = await executor.query('select * from no_such_table').catch((caught: unknown) => caught);
      expect(isSheafError(other)).toBe(false);
      expect((other as { errno?: number }).errno).toBe(1146);
    });

    it('a session keeps one connection; a failed one is not returned to the pool', async () => {
      const executor = mariadbExecutor(pool);
      const id = await executor.session(async (session) => {
        await session.query('set @sheaf_probe = 42');
        const [row] = await session.query<{ v: string; c: string }>('select @sheaf_probe as v, connection_id() as c');
        expect(Number(row!.v)).toBe(42);
        return row!.c;
      });
      const failed = await executor
        .session(async (session) => {
          await session.query('select get_lock(?, 0) as l', ['mdb_probe']);
          throw new Error('boom');
        })
        .catch((caught: unknown) => caught);
      expect((failed as Error).message).toBe('boom');
      // The lock dies with the destroyed connection, once the server has noticed the disconnect
      // (asynchronously: polled for up to 5 s). A connection back in the pool would keep it.
      let free = 0;
      for (let i = 0; i < 100 && free !== 1; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        const [row] = await executor.query<{ f: number }>('select is_free_lock(?) as f', ['mdb_probe']);
        free = Number(row!.f);
      }
      expect(free).toBe(1);
      expect(Number(id)).toBeGreaterThan(0);
    });

    it('mysql2Executor refuses a mariadb pool with INVALID_ARGUMENT instead of returning no rows', async () => {
      const wrong = mysql2Executor(pool as never);
      await expectSheafRejection(wrong.query('select 1 as a'), 'INVALID_ARGUMENT', 'use mariadbExecutor');
      await expectSheafRejection(wrong.query('set @sheaf_probe = 1'), 'INVALID_ARGUMENT', 'mariadb');
      await expectSheafRejection(wrong.query("call sheaf_alloc_segment('nope', null)"), 'UNKNOWN_SEGMENT');
    });
  },
  { only: ['mariadb'] },
);
