import {
  decodeId,
  install,
  isSheafError,
  mysql2Executor,
  presets,
  type SqlExecutor,
  sheafTriggerSql,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createScratchMariadb, mariadbMissing, type ScratchMariadb } from '../support/scratch-mariadb.js';
import { queryState } from '../support/state-sql.js';
import { selectedTargets } from '../support/targets.js';

const missing = selectedTargets().includes('mariadb') ? mariadbMissing() : 'mariadb is not in SHEAF_TEST_TARGETS';

// The shared server runs without binary logging, MySQL 8's default is with it: one scratch server
// with ROW binary logging, as a replicated production server has it.
describe.skipIf(missing !== undefined)(
  `sheaf on MariaDB with binary logging [scratch server${missing ? `: ${missing}` : ''}]`,
  () => {
    let server: ScratchMariadb;
    let pool: mysql.Pool;
    let executor: SqlExecutor;

    beforeAll(async () => {
      server = await createScratchMariadb(['--log-bin=sheaf-bin', '--binlog-format=ROW', '--server-id=1']);
      pool = mysql.createPool({ uri: server.url, connectionLimit: 4 });
      executor = mysql2Executor(pool);
    }, 180_000);

    afterAll(async () => {
      await pool?.end();
      server?.destroy();
    });

    it('install() refuses with SERVER_CONFIG naming log_bin_trust_function_creators, before applying anything', async () => {
      const [row] = await executor.query<{ on: unknown; trust: unknown }>(
        'select @@log_bin as `on`, @@log_bin_trust_function_creators as trust',
      );
      expect([Number(row!.on), Number(row!.trust)]).toEqual([1, 0]);
      const error = await expectSheafRejection(
        install(executor),
        'SERVER_CONFIG',
        'set global log_bin_trust_function_creators = 1',
      );
      expect(error.details).toMatchObject({ setting: 'log_bin_trust_function_creators', binlogFormat: 'ROW' });
      const [tables] = await executor.query<{ n: unknown }>(
        "select count(*) as n from information_schema.tables where table_schema = database() and table_name like 'sheaf%'",
      );
      expect(Number(tables!.n)).toBe(0);
      // What the check spares the user: the server's own refusal, half-way through a file.
      const refused = await executor
        .query('create function sheaf_probe() returns int not deterministic modifies sql data return 1')
        .catch((caught: unknown) => caught);
      expect(isSheafError(refused, 'SERVER_CONFIG')).toBe(true);
      expect((refused as { cause: { errno: number } }).cause.errno).toBe(1418);
    });

    it('refuses binlog_format STATEMENT, which cannot replay SYSDATE()', async () => {
      await executor.query('set global log_bin_trust_function_creators = 1');
      await executor.session(async (session) => {
        await session.query("set session binlog_format = 'STATEMENT'");
        await expectSheafRejection(install(session), 'SERVER_CONFIG', 'binlog_format is STATEMENT', 'ROW or MIXED');
        await session.query("set session binlog_format = 'ROW'");
      });
    });

    it('after set global log_bin_trust_function_creators = 1: install, ids, triggers, tickets, segments, leases', async () => {
      await executor.query('set global log_bin_trust_function_creators = 1');
      expect((await install(executor, { shard: 11 })).applied.length).toBeGreaterThan(0);
      const [one] = await executor.query<{ id: string }>('select sheaf_next_id() as id');
      expect(decodeId(one!.id, presets.sheaf).shardId).toBe(11);
      const many = await executor.query<{ id: string }>('call sheaf_next_ids(?)', [1000]);
      expect(new Set(many.map((row) => row.id)).size).toBe(1000);

      await executor.query('create table binlog_orders (id bigint not null auto_increment primary key, v int)');
      await executor.query(sheafTriggerSql('binlog_orders', 'id').create);
      await executor.query('insert into binlog_orders (v) values (1), (2), (3)');
      const rows = await executor.query<{ id: string }>('select id from binlog_orders');
      expect(rows.every((row) => decodeId(row.id, presets.sheaf).shardId === 11)).toBe(true);

      await queryState(executor, "call {state}.sheaf_create_ticket('orders', 2, 1)");
      const tickets = [];
      for (let i = 0; i < 3; i++) {
        const [ticket] = await executor.query<{ t: string }>("select sheaf_next_ticket('orders') as t");
        tickets.push(Number(ticket!.t));
      }
      expect(tickets).toEqual([1, 3, 5]);

      await queryState(executor, "call {state}.sheaf_create_segment('orders', 100, 0, null)");
      const [first] = await executor.query<{ first_id: unknown; last_id: unknown }>(
        "call sheaf_alloc_segment('orders', null)",
      );
      const [second] = await executor.query<{ first_id: unknown }>("call sheaf_alloc_segment('orders', null)");
      expect([Number(first!.first_id), Number(first!.last_id), Number(second!.first_id)]).toEqual([1, 100, 101]);

      const [lease] = await executor.query<{ worker_id: number; lease_token: string }>(
        'call sheaf_lease_worker(?, ?, ?)',
        ['binlog-test', 10_000, 1023],
      );
      const [beat] = await executor.query<{ expires: unknown }>(
        'select sheaf_heartbeat_worker(?, ?, ?, ?) as expires',
        [lease!.worker_id, lease!.lease_token, Date.now(), 10_000],
      );
      expect(Number(beat!.expires)).toBeGreaterThan(Date.now());
      const [released] = await executor.query<{ ok: unknown }>('select sheaf_release_worker(?, ?, ?) as ok', [
        lease!.worker_id,
        lease!.lease_token,
        Date.now(),
      ]);
      expect(Number(released!.ok)).toBe(1);

      const logs = await executor.query<{ Log_name: string }>('show binary logs');
      expect(logs[0]?.Log_name).toMatch(/^sheaf-bin\.\d+$/);
    });
  },
  120_000,
);
