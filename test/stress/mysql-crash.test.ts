import { install, mysql2Executor, type SqlExecutor, sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchMariadb, mariadbMissing, type ScratchMariadb } from '../support/scratch-mariadb.js';
import { selectedTargets } from '../support/targets.js';

const missing = selectedTargets().includes('mariadb') ? mariadbMissing() : 'mariadb is not in SHEAF_TEST_TARGETS';
/** Extra mariadbd options, to show the test fails when durability is broken (docs/sql/mysql.md). */
const serverOptions = process.env.SHEAF_CRASH_MARIADB_OPTIONS?.split(/\s+/).filter(Boolean) ?? [];

interface Opened {
  executor: SqlExecutor;
  connection: mysql.Connection;
}

const idsOf = (rows: { id?: unknown }[]) => rows.map((row) => BigInt(String(row.id)));

// kill -9 of a scratch MariaDB mid-stream. The test clock is frozen an hour ahead of real time on
// every connection, before and after the crash: the time component cannot hide a counter that went
// back, so only the durability of sheaf_chunks' AUTO_INCREMENT keeps ids from being handed out twice.
describe.skipIf(missing !== undefined)(
  `sheaf_next_id across a MariaDB crash [scratch server${missing ? `: ${missing}` : ''}]`,
  () => {
    let server: ScratchMariadb;
    const frozen = Date.now() + 3_600_000;

    const connect = async (): Promise<Opened> => {
      const connection = await mysql.createConnection({
        uri: server.url,
        supportBigNumbers: true,
        bigNumberStrings: true,
      });
      connection.on('error', () => undefined);
      const executor = mysql2Executor(connection);
      await executor.query('set @sheaf_clock_ms = ?', [frozen]);
      return { executor, connection };
    };

    beforeAll(async () => {
      server = await createScratchMariadb(serverOptions);
      const { executor, connection } = await connect();
      await install(executor, { testClock: true });
      await executor.query('create table rows_ (id bigint not null auto_increment primary key, n int) engine = innodb');
      await executor.query(sheafTriggerSql('rows_', 'id').create);
      await connection.end();
    }, 180_000);

    afterAll(() => server?.destroy());

    /**
     * Streams ids with `take` for a second beside a transaction that keeps taking ids and never
     * commits (its chunk claims reach the redo log but nobody's commit of its own flushes them),
     * kills the server, restarts it, and returns the ids handed out before and the first id after.
     */
    async function crashDuring(take: (opened: Opened) => Promise<bigint[]>) {
      const before: bigint[] = [];
      let crashed = false;
      const stream = await connect();
      const holder = await connect();
      await holder.executor.query('start transaction');
      await holder.executor.query('insert into rows_ (n) values (0)');
      const running = [
        (async () => {
          while (!crashed) {
            try {
              before.push(...(await take(stream)));
            } catch {
              return;
            }
          }
        })(),
        (async () => {
          while (!crashed) {
            await holder.executor.query('call sheaf_next_ids(300)').catch(() => undefined);
          }
        })(),
      ];
      await new Promise((resolve) => setTimeout(resolve, 1000));
      crashed = true;
      await server.crash();
      await Promise.all(running);
      for (const { connection } of [stream, holder]) connection.destroy();
      await server.start();
      const after = await connect();
      const [first] = idsOf(await after.executor.query<{ id: unknown }>('select sheaf_next_id() as id'));
      await after.connection.end();
      return { before, firstAfter: first! };
    }

    const fifty = Array.from({ length: 50 }, (_, i) => `(${i})`).join(', ');
    const streams: [string, (opened: Opened) => Promise<bigint[]>][] = [
      [
        'committed 1-row INSERTs through the trigger (insertId)',
        async ({ connection }) => {
          const [result] = await connection.query<mysql.ResultSetHeader>('insert into rows_ (n) values (1)');
          return [BigInt(result.insertId)];
        },
      ],
      [
        'committed 50-row INSERTs through the trigger (returning)',
        async ({ executor }) => idsOf(await executor.query(`insert into rows_ (n) values ${fifty} returning id`)),
      ],
      [
        'autocommit select sheaf_next_id()',
        async ({ executor }) => idsOf(await executor.query('select sheaf_next_id() as id')),
      ],
      ['call sheaf_next_ids(20)', async ({ executor }) => idsOf(await executor.query('call sheaf_next_ids(20)'))],
      [
        'call sheaf_next_ids(20) in a session whose cached chunk came from a rolled-back transaction',
        async ({ executor }) => {
          await executor.query('start transaction');
          await executor.query('select sheaf_next_id()');
          await executor.query('rollback');
          return idsOf(await executor.query('call sheaf_next_ids(20)'));
        },
      ],
    ];
    for (const [what, take] of streams) {
      it(`never hands out again an id from ${what}`, async () => {
        const { before, firstAfter } = await crashDuring(take);
        expect(before.length).toBeGreaterThan(0);
        const reissued = before.filter((id) => id >= firstAfter);
        expect(reissued, `${reissued.length} of ${before.length} ids at or above ${firstAfter}`).toEqual([]);
      }, 120_000);
    }
  },
);
