import { randomUUID } from 'node:crypto';
import {
  decodeId,
  install,
  isSheafError,
  mysql2Executor,
  SnowflakeGenerator,
  type SqlExecutor,
  sheafTriggerSql,
  uninstall,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import { expect, it } from 'vitest';
import { mysqlFiles } from '../../packages/core/src/install/files.generated.js';
import { statementsOf } from '../../packages/core/src/install/sql-file.js';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { clean, IdTally, idSpaceReport } from '../support/id-space.js';
import { suiteAccounts } from '../support/mysql-accounts.js';
import { nextIds } from '../support/mysql-calls.js';
import { queryState, stateSql } from '../support/state-sql.js';

interface Lease {
  worker_id: number;
  lease_token: string;
  last_timestamp_ms: string;
}
const configureArgs = "'sheaf', 1704067200000, 41, 12, 10, false";
const configure = (sql: SqlExecutor, shard: number) =>
  queryState(sql, `call {state}.sheaf_configure(?, ${configureArgs})`, [shard]);
const leaseWorker = (sql: SqlExecutor, holder: string, max: number, ms = 60_000) =>
  sql.query<Lease>('call sheaf_lease_worker(?, ?, ?)', [holder, ms, max]).then((rows) => rows[0]!);
const leaseWorkerId = (sql: SqlExecutor, holder: string, id: number, ms = 60_000) =>
  sql.query<Lease>('call sheaf_lease_worker_id(?, ?, ?)', [holder, ms, id]).then((rows) => rows[0]!);
const row = async (sql: SqlExecutor, id: number) =>
  (await queryState<Record<string, unknown>>(sql, 'select * from {state}.sheaf_workers where worker_id = ?', [id]))[0];
const own = async (sql: SqlExecutor) =>
  (await queryState<{ database_id: string; database_name: string }>(sql, 'select * from {state}.sheaf_settings'))[0]!;
const routines = (sql: SqlExecutor) =>
  sql.query(`select routine_name, routine_type, security_type, routine_definition from information_schema.routines
    where routine_schema = database() order by routine_name`);
const versions = async (sql: SqlExecutor) =>
  (await queryState<{ version: number }>(sql, 'select version from {state}.sheaf_schema_versions order by 1')).map(
    (r) => r.version,
  );
const fresh = async (sql: SqlExecutor, shard: number, upTo?: number) => {
  await uninstall(sql, { force: true });
  await install(sql, { shard, upTo });
};
const file6 = statementsOf(mysqlFiles.find((file) => file.version === 6)!.sql);
/** What an install applies to a database left at version 5, or stopped inside 0006: 0006 and every later file. */
const fromSix = mysqlFiles.map((file) => file.version).filter((version) => version >= 6);

describeTargets(
  'one id space on MySQL/MariaDB: database shards and worker ids (0006)',
  (db) => {
    const sql = () => db().executor;

    it('a database installed with shard 1 is never leased as a worker id; lease_worker_id names the database', async () => {
      await fresh(sql(), 1);
      const leased = [];
      for (let i = 0; i < 3; i++) leased.push((await leaseWorker(sql(), `w${i}`, 3)).worker_id);
      expect(leased).toEqual([0, 2, 3]);
      await expectSheafRejection(leaseWorker(sql(), 'w4', 3), 'WORKERS_EXHAUSTED', 'held by databases');
      const { database_id, database_name } = await own(sql());
      expect(database_name).toMatch(/^sheaf_t_\w+ on .+:\d+$/);
      await expectSheafRejection(
        leaseWorkerId(sql(), 'w5', 1),
        'SHARD_TAKEN',
        'worker id 1',
        database_name,
        database_id,
      );
      await expectSheafRejection(leaseWorkerId(sql(), 'w5', 2), 'SHARD_TAKEN', "leased by 'w1'");
      await expectSheafRejection(leaseWorkerId(sql(), 'w5', 4096), 'SHARD_OUT_OF_RANGE', '4096');
      expect((await leaseWorkerId(sql(), 'w5', 4095)).worker_id).toBe(4095);
    });

    it('a live lease, or ids issued ahead of the clock, refuse a claim naming the worker; nothing changes', async () => {
      await fresh(sql(), 0);
      const lease = await leaseWorkerId(sql(), 'gen-7', 7);
      const before = await row(sql(), 7);
      await expectSheafRejection(queryState(sql(), 'call {state}.sheaf_add_shard(7)'), 'SHARD_TAKEN', "worker 'gen-7'");
      await expectSheafRejection(configure(sql(), 7), 'SHARD_TAKEN', "worker 'gen-7'");
      const claim = 'select {state}.sheaf_claim_shard(7, ?, ?, false) as last_ms';
      await expectSheafRejection(queryState(sql(), claim, [randomUUID(), 'other db']), 'SHARD_TAKEN', "'gen-7'");
      expect(await row(sql(), 7)).toEqual(before);
      expect(
        Number(
          (await queryState<{ shard_id: number }>(sql(), 'select shard_id from {state}.sheaf_settings'))[0]!.shard_id,
        ),
      ).toBe(0);
      // Closed with a last millisecond ahead of the clock: still refused until the clock passed it.
      await sql().query('select sheaf_close_worker(7, ?, ?)', [lease.lease_token, Date.now() + 60_000]);
      await expectSheafRejection(
        queryState(sql(), 'call {state}.sheaf_add_shard(7)'),
        'SHARD_TAKEN',
        'issued by a worker up to',
      );
      await queryState(sql(), 'update {state}.sheaf_workers set last_timestamp_ms = ? where worker_id = 7', [
        Date.now() - 5,
      ]);
      await queryState(sql(), 'call {state}.sheaf_add_shard(7)');
      expect(await row(sql(), 7)).toMatchObject({ kind: 'database', lease_token: null, expires_ms: null });
    });

    it('configure to another shard claims it, gives the old one back with its last ms; a worker then leases it', async () => {
      await fresh(sql(), 3);
      const ids = await nextIds(sql(), 2000);
      const lastIssued = Math.max(...ids.map((id) => decodeId(id).ms));
      await configure(sql(), 4);
      const released = await row(sql(), 3);
      expect(released).toMatchObject({ kind: 'worker', holder: null, database_id: null, expires_ms: null });
      expect(Number(released!.last_timestamp_ms)).toBeGreaterThanOrEqual(lastIssued);
      expect(await row(sql(), 4)).toMatchObject({ kind: 'database', database_id: (await own(sql())).database_id });
      const lease = await leaseWorkerId(sql(), 'after', 3);
      expect(Number(lease.last_timestamp_ms)).toBeGreaterThanOrEqual(lastIssued);
      expect(decodeId((await nextIds(sql(), 1))[0]!).shardId).toBe(4);
      // A logical shard stays the database's when the configured shard moves off it.
      await queryState(sql(), 'call {state}.sheaf_add_shard(9)');
      await configure(sql(), 9);
      expect((await row(sql(), 4))!.kind).toBe('worker');
      await configure(sql(), 5);
      expect((await row(sql(), 9))!.kind).toBe('database');
      // Moving straight back waits out the few ms the release recorded ahead of the clock.
      await nextIds(sql(), 500);
      await configure(sql(), 4);
      await configure(sql(), 5);
      expect((await row(sql(), 5))!.kind).toBe('database');
    });

    it('giving a shard back marks no id as issued: the layout stays open until the first id', async () => {
      await fresh(sql(), 3);
      await configure(sql(), 4);
      await install(sql(), { shard: 6, layout: 'twitter' });
      expect((await row(sql(), 4))!.kind).toBe('worker');
      await nextIds(sql(), 1);
      await expectSheafRejection(install(sql(), { shard: 7, layout: 'sheaf' }), 'LAYOUT_LOCKED');
      expect((await row(sql(), 7))?.kind).toBeUndefined();
    });

    it('claim_shard: idempotent for a database, refused for another naming it; pending claims adopted by the same holder', async () => {
      await fresh(sql(), 0);
      await queryState(sql(), 'call {state}.sheaf_add_shard(12)');
      const { database_id, database_name } = await own(sql());
      const claim = (shard: number, id: string, holder: string, pending: boolean) =>
        queryState<{ last_ms: string }>(sql(), 'select {state}.sheaf_claim_shard(?, ?, ?, ?) as last_ms', [
          shard,
          id,
          holder,
          pending,
        ]);
      expect((await claim(12, database_id, database_name, false))[0]!.last_ms).toBe('0');
      await expectSheafRejection(claim(12, randomUUID(), 'other', false), 'SHARD_TAKEN', database_name, database_id);
      const [a, b] = [randomUUID(), randomUUID()];
      await claim(20, a, 'installer x', true);
      await claim(20, b, 'installer x', true);
      expect(await row(sql(), 20)).toMatchObject({
        kind: 'database',
        database_id: b,
        expires_ms: '9223372036854775807',
      });
      await expectSheafRejection(
        claim(20, randomUUID(), 'installer y', true),
        'SHARD_TAKEN',
        "'installer x'",
        'pending since',
      );
      await expectSheafRejection(leaseWorkerId(sql(), 'w', 20), 'SHARD_TAKEN', "'installer x'");
      await claim(20, b, 'installer x', false);
      expect((await row(sql(), 20))!.expires_ms).toBeNull();
      await claim(20, b, 'installer x', true);
      expect((await row(sql(), 20))!.expires_ms).toBeNull();
      const release = (id: string, last: number) =>
        queryState<{ ok: number }>(sql(), 'select {state}.sheaf_release_shard(20, ?, ?) as ok', [id, last]);
      expect(Number((await release(a, 5))[0]!.ok)).toBe(0);
      expect(Number((await release(b, 123))[0]!.ok)).toBe(1);
      expect(await row(sql(), 20)).toMatchObject({ kind: 'worker', last_timestamp_ms: '123', database_id: null });
      await expectSheafRejection(claim(4096, b, 'x', false), 'SHARD_OUT_OF_RANGE');
      await expectSheafRejection(claim(21, 'not-a-uuid', 'x', false), 'INVALID_ARGUMENT', 'not-a-uuid');
    });

    it('a database whose shards are registered elsewhere leases no worker id and claims only what its installer registered', async () => {
      await fresh(sql(), 0);
      await queryState(sql(), "call {state}.sheaf__use_registry('registry on db1:3306 (5f0c…)')");
      await expectSheafRejection(leaseWorker(sql(), 'w', 63), 'REGISTRY_ELSEWHERE', 'registry on db1:3306');
      await expectSheafRejection(leaseWorkerId(sql(), 'w', 40), 'REGISTRY_ELSEWHERE');
      await expectSheafRejection(
        queryState(sql(), 'call {state}.sheaf_add_shard(30)'),
        'REGISTRY_ELSEWHERE',
        'shard 30',
      );
      await sql().session(async (session) => {
        await session.query('set @sheaf_registered_shard = 30');
        await queryState(session, 'call {state}.sheaf_add_shard(30)');
        await session.query('set @sheaf_registered_shard = null');
      });
      expect((await row(sql(), 30))!.kind).toBe('database');
      await queryState(sql(), 'call {state}.sheaf__use_registry(null)');
      expect((await leaseWorker(sql(), 'w', 63)).worker_id).toBe(1);
    });

    it('20 connections leasing while configure and add_shard claim the same values: no value is held twice', async () => {
      await fresh(sql(), 0);
      const sessions = await db().sessions(20);
      const values = Array.from({ length: 40 }, (_, i) => 2 * i + 1);
      const leases: Lease[] = [];
      const added: number[] = [];
      const configured: number[] = [];
      const refusedOnly = (error: unknown) => {
        if (!isSheafError(error) || error.code !== 'SHARD_TAKEN') throw error;
      };
      // Two admins: one adds logical shards, the other moves the configured shard (releasing the old one).
      // Connected and with their statements resolved before the race, so they start with the leasers:
      // starting late, they found every value leased (a race with nothing left to race for).
      const claimer = async (mine: (value: number) => boolean, move: boolean) => {
        const admin = await db().connect();
        const claim = await stateSql(
          admin.executor,
          move ? `call {state}.sheaf_configure(?, ${configureArgs})` : 'call {state}.sheaf_add_shard(?)',
        );
        return {
          async run() {
            for (const value of values.filter(mine)) {
              await admin.executor
                .query(claim, [value])
                .then(() => (move ? configured : added).push(value), refusedOnly);
            }
          },
          close: () => admin.close(),
        };
      };
      // Half lease the lowest free id, half the very values being claimed, each from another start.
      const leaser = (session: SqlExecutor, i: number) => async () => {
        const mine: Lease[] = [];
        for (let n = 0; mine.length < 3 && n < values.length; n++) {
          const value = values[(i * 4 + n) % values.length]!;
          const lease = i % 2 === 0 ? leaseWorker(session, `s${i}`, 127) : leaseWorkerId(session, `s${i}`, value);
          await lease.then((got) => mine.push(got), refusedOnly);
        }
        leases.push(...mine);
      };
      const claimers = [
        await claimer((value) => value % 4 === 1, false),
        await claimer((value) => value % 4 === 3, true),
      ];
      try {
        await Promise.all([...claimers.map((c) => c.run()), ...sessions.map((session, i) => leaser(session, i)())]);
      } finally {
        for (const c of claimers) await c.close();
      }
      const leased = leases.map((lease) => lease.worker_id);
      expect(new Set(leased).size).toBe(leases.length);
      const rows = await queryState<{ worker_id: number; kind: string; lease_token: string | null }>(
        sql(),
        'select worker_id, kind, lease_token from {state}.sheaf_workers',
      );
      const byId = new Map(rows.map((r) => [r.worker_id, r]));
      for (const lease of leases) {
        expect(byId.get(lease.worker_id), `lease of ${lease.worker_id}`).toMatchObject({
          kind: 'worker',
          lease_token: lease.lease_token,
        });
      }
      const held = [...added, ...configured.slice(-1)];
      for (const value of held) expect(byId.get(value)?.kind, `value ${value}`).toBe('database');
      expect(leased.filter((id) => held.includes(id))).toEqual([]);
      expect(added.length + configured.length).toBeGreaterThan(0);
      expect(leases.length).toBeGreaterThan(40);
    });

    it('a SnowflakeGenerator with default options and the trigger of a shard-1 database write one table: 0 collisions', async () => {
      await fresh(sql(), 1);
      await sql().query('drop table if exists id_space_orders');
      await sql().query('create table id_space_orders (id bigint not null auto_increment primary key, by_db tinyint)');
      await sql().query(sheafTriggerSql('id_space_orders', 'id').create);
      const pool = mysql.createPool({ uri: db().url!, connectionLimit: 4 });
      const generators = [
        await SnowflakeGenerator.start(mysql2Executor(pool)),
        await SnowflakeGenerator.start(mysql2Executor(pool)),
      ];
      try {
        expect(generators.map((generator) => generator.workerId)).toEqual([0, 2]);
        const tally = new IdTally();
        const writers = await db().sessions(4);
        await Promise.all([
          ...generators.map((generator) => {
            const ids = tally.record(generator.workerId, generator);
            return tally.repeat(400, () =>
              sql().query('insert into id_space_orders (id, by_db) values (?, 0)', [String(ids.next())]),
            );
          }),
          ...writers.map((writer) =>
            tally.repeat(200, () => writer.query('insert into id_space_orders (by_db) values (1), (1)')),
          ),
        ]);
        const rows = await sql().query<{ id: string; by_db: number }>('select id, by_db from id_space_orders');
        const written = rows.map((r) => ({ id: r.id, byDatabase: Number(r.by_db) === 1 }));
        expect(idSpaceReport(tally, written, 1)).toEqual(clean(2 * 400 + 4 * 200 * 2));
      } finally {
        await Promise.all(generators.map((generator) => generator.close()));
        await pool.end();
      }
    });

    it('an upgrade from 0005 is refused while a worker holds the shard, changing nothing; it succeeds once the lease ends', async () => {
      await fresh(sql(), 1, 5);
      await leaseWorker(sql(), 'gen-zero', 63);
      const one = await leaseWorker(sql(), 'gen-one', 63);
      expect(one.worker_id).toBe(1);
      const [before, workers] = [await routines(sql()), await queryState(sql(), 'select * from {state}.sheaf_workers')];
      const columns = 'select column_name from information_schema.columns where table_schema = database() order by 1';
      const beforeColumns = await sql().query(columns);
      await expectSheafRejection(install(sql()), 'SHARD_TAKEN', 'shard 1', "worker 'gen-one'");
      expect(await versions(sql())).toEqual([1, 2, 3, 4, 5]);
      expect(await queryState(sql(), 'select * from {state}.sheaf_workers')).toEqual(workers);
      expect(await sql().query(columns)).toEqual(beforeColumns);
      // Only the file's check procedure is left, which the next install drops.
      const after = (await routines(sql())) as { routine_name: string }[];
      expect(after.filter((r) => r.routine_name !== 'sheaf__id_space_0006')).toEqual(before);
      await sql().query('select sheaf_heartbeat_worker(1, ?, 0, 60000)', [one.lease_token]);
      await sql().query('select sheaf_close_worker(1, ?, ?)', [one.lease_token, Date.now() - 1]);
      expect((await install(sql())).applied).toEqual(fromSix);
      expect(await row(sql(), 1)).toMatchObject({ kind: 'database', expires_ms: null });
      expect(await row(sql(), 0)).toMatchObject({ kind: 'worker', holder: 'gen-zero' });
      expect((await leaseWorker(sql(), 'next', 63)).worker_id).toBe(2);
    });

    it('a lease taken while 0006 runs makes its claim fail before any 0005 routine is replaced', async () => {
      await fresh(sql(), 1, 5);
      await leaseWorker(sql(), 'gen-zero', 63);
      const before = await routines(sql());
      let racer: Lease | undefined;
      const racing: SqlExecutor = {
        dialect: sql().dialect,
        query: (text, params) => sql().query(text, params),
        session: (fn) =>
          sql().session((session) =>
            fn({
              ...session,
              async query(text, params) {
                const rows = await session.query(text, params);
                if (/^call sheaf__id_space_0006/m.test(text)) racer = await leaseWorker(sql(), 'racer', 63);
                return rows as never;
              },
            }),
          ),
      };
      await expectSheafRejection(install(racing), 'SHARD_TAKEN', "worker 'racer'");
      expect(racer?.worker_id).toBe(1);
      const after = (await routines(sql())) as { routine_name: string }[];
      const kept = new Set(['sheaf_configure', 'sheaf_add_shard', 'sheaf_lease_worker']);
      expect(after.filter((r) => kept.has(r.routine_name))).toEqual(
        (before as { routine_name: string }[]).filter((r) => kept.has(r.routine_name)),
      );
      await sql().query('select sheaf_close_worker(1, ?, ?)', [racer!.lease_token, Date.now() - 1]);
      expect((await install(sql())).applied).toEqual(fromSix);
      expect((await row(sql(), 1))!.kind).toBe('database');
    });

    it('an application may lease worker ids, also one named and after an upgrade; it may not claim or release values', async () => {
      await fresh(sql(), 2, 5);
      const accounts = suiteAccounts(db());
      try {
        const [app, exec] = [await accounts.create('app'), await accounts.create('exec')];
        const on = `\`${new URL(db().url!).pathname.slice(1)}\``;
        await sql().query(`grant execute on procedure ${on}.sheaf_lease_worker to ${app.sql}`);
        await sql().query(`grant execute on ${on}.* to ${exec.sql}`);
        await install(sql());
        await app.as(async (session) => {
          expect((await leaseWorkerId(session, 'app', 9)).worker_id).toBe(9);
          await expectSheafRejection(leaseWorkerId(session, 'app', 2), 'SHARD_TAKEN', 'database');
        });
        const state = `\`sheaf_${new URL(db().url!).pathname.slice(1)}\``;
        for (const account of [app, exec]) {
          await account.as(async (session) => {
            // ER_PROCACCESS_DENIED_ERROR in sheaf's own database, where EXECUTE on the application's
            // gives no right.
            for (const statement of [
              `select ${state}.sheaf_claim_shard(9, uuid(), 'x', false)`,
              `select ${state}.sheaf_release_shard(2, uuid(), 0)`,
              `call ${state}.sheaf__use_registry('x')`,
              `call ${state}.sheaf_add_shard(30)`,
            ]) {
              await expect(session.query(statement), statement).rejects.toMatchObject({ errno: 1370 });
            }
          });
        }
        await exec.as(async (session) => {
          // Since 0013 the application's database has no routine of these names (ER_SP_DOES_NOT_EXIST),
          // which only an account with EXECUTE there is told.
          for (const statement of [
            "select sheaf_claim_shard(9, uuid(), 'x', false)",
            'select sheaf_release_shard(2, uuid(), 0)',
            'call sheaf_add_shard(30)',
          ]) {
            await expect(session.query(statement), statement).rejects.toMatchObject({ cause: { errno: 1305 } });
          }
        });
        expect((await row(sql(), 2))!.kind).toBe('database');
      } finally {
        await accounts.drop();
      }
    });

    // Nine fresh installs, each repaired by an install that applies 0006 and every later file.
    it('0006 stopped after any statement is applied again by the next install and ends as a fresh install', async () => {
      await fresh(sql(), 3);
      await queryState(sql(), 'call {state}.sheaf_add_shard(8)');
      const expected = await routines(sql());
      // After: the check procedure is made; it ran (columns added); each pending claim; each drop of a
      // replaced routine; everything but the confirmations; all but the last confirmation.
      const after = (pattern: RegExp) => file6.findIndex((statement) => pattern.test(statement)) + 1;
      const stops = [
        1,
        2,
        after(/^select sheaf__claim_own_shard\(s\.shard_id, true\)/m),
        after(/^select sheaf__claim_own_shard\(l\.shard_id, true\)/m),
        after(/^drop procedure if exists sheaf_configure/m),
        after(/^drop procedure if exists sheaf_add_shard/m),
        after(/^drop procedure if exists sheaf_lease_worker/m),
        after(/^create procedure sheaf_lease_worker_id/m),
        file6.length - 1,
      ];
      expect(stops).toEqual([1, 2, 9, 10, 11, 13, 17, 19, 20]);
      for (const stop of stops) {
        await fresh(sql(), 3, 5);
        await queryState(sql(), 'call {state}.sheaf_add_shard(8)');
        for (const statement of file6.slice(0, stop)) await sql().query(statement);
        expect((await install(sql())).applied, `stopped after ${stop}`).toEqual(fromSix);
        expect(await routines(sql()), `stopped after ${stop}`).toEqual(expected);
        for (const value of [3, 8])
          expect(await row(sql(), value), `${value} after ${stop}`).toMatchObject({
            kind: 'database',
            expires_ms: null,
          });
        expect((await leaseWorker(sql(), 'w', 63)).worker_id).toBe(0);
      }
    }, 120_000);
  },
  { only: ['mariadb'] },
);
