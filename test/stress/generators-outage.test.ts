import {
  BatchedDbIds,
  install,
  mysql2Executor,
  pgExecutor,
  SegmentGenerator,
  type SqlExecutor,
  TicketClient,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createSegment, createTicket } from '../support/generator-sql.js';
import { type ScratchOutage, scratchOutages } from '../support/scratch-outage.js';
import { mysqlUrl, pgUrl, withDatabase } from '../support/targets.js';
import { until } from '../support/test-clock.js';

const name = () => `sheaf_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}_odd`;

async function postgresStable() {
  const database = name();
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const odd = new pg.Pool({ connectionString: withDatabase(pgUrl, database), max: 2 });
  // end() resolves before the sockets close; the forced drop must not kill a closing client loudly.
  odd.on('connect', (client) => client.on('error', () => undefined));
  odd.on('error', () => undefined);
  return {
    executor: pgExecutor(odd),
    async drop() {
      await odd.end();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    },
  };
}

async function mariadbStable() {
  const database = name();
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  await admin.query(`create database ${database}`);
  const odd = mysql.createPool({ uri: withDatabase(mysqlUrl, database), connectionLimit: 2 });
  return {
    executor: mysql2Executor(odd),
    async drop() {
      await odd.end();
      await admin.query(`drop database if exists ${database}`);
      await admin.query(`drop database if exists sheaf_${database}`);
      await admin.end();
    },
  };
}

/** A database of its own on the shared server of the same kind: the ticket server that stays up. */
const stableDatabases = { postgres: postgresStable, mariadb: mariadbStable };

// A real outage: the generators' database is a scratch server that the test kills with SIGKILL and
// starts again. Nothing is mocked: the drivers see refused connections and broken sockets.
for (const { target, title, missing, open } of scratchOutages) {
  describe.skipIf(Boolean(missing))(
    `generators while their database is down [${title}${missing ? `: ${missing}` : ''}]`,
    () => {
      let outage: ScratchOutage;
      let executor: SqlExecutor;
      const retry = { minMs: 20, maxMs: 100 };

      beforeAll(async () => {
        outage = await open();
        executor = outage.executor;
        await install(executor);
        await createSegment(executor, 'orders', 1000);
        await createTicket(executor, 'orders', 2, 2);
      }, 180_000);

      afterAll(async () => {
        await outage?.destroy();
      });

      it('serves segments from memory through the outage, then SEGMENT_UNAVAILABLE, and recovers when the server is back', async () => {
        const ids = await new SegmentGenerator(executor, {
          bizTag: 'orders',
          dynamicStep: false,
          waitTimeoutMs: 300,
          retry,
        }).start();
        const taken: number[] = [];
        while (taken.length < 200) taken.push(ids.nextSync() ?? (await ids.next()));
        await until(() => ids.stats().segments === 2, 5000, 'the spare segment');
        await outage.crash();
        // 1,800 ids left in the buffers: all of them are served while the database is down.
        while (taken.length < 2000) taken.push(ids.nextSync() ?? (await ids.next()));
        await until(() => ids.stats().failures >= 2, 5000, 'failed allocations');
        expect(ids.stats()).toMatchObject({ remaining: 0, fetching: true });
        const unavailable = await expectSheafRejection(ids.next(), 'SEGMENT_UNAVAILABLE', "segment 'orders'", '300 ms');
        expect(unavailable.cause).toBeInstanceOf(Error);
        await outage.start();
        const resumed = ids.next();
        taken.push(await resumed);
        while (taken.length < 3500) taken.push(ids.nextSync() ?? (await ids.next()));
        expect(taken.slice(0, 2000)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
        expect(new Set(taken).size).toBe(taken.length);
        expect(taken[2000]).toBeGreaterThan(2000);
        expect(ids.stats()).toMatchObject({ failures: 0, lastError: undefined });
        await ids.close();
      });

      it('fails over to the ticket server that is up, and takes turns again once the other is back', async () => {
        const stable = await stableDatabases[target]();
        try {
          const odd = stable.executor;
          await install(odd);
          await createTicket(odd, 'orders', 2, 1);
          const tickets = new TicketClient([odd, executor], {
            name: 'orders',
            ids: 'number',
            retry: { minMs: 50, maxMs: 50 },
          });
          const before = [await tickets.next(), await tickets.next()];
          expect(before.map((id) => id % 2)).toEqual([1, 0]);
          await outage.crash();
          const during = [];
          for (let i = 0; i < 50; i++) during.push(await tickets.next());
          expect(during.every((id) => id % 2 === 1)).toBe(true);
          expect(tickets.servers()[1]!.up).toBe(false);
          await outage.start();
          await until(() => tickets.servers()[1]!.retryInMs === 0, 2000, 'the retry');
          const after = [];
          for (let i = 0; i < 10; i++) after.push(await tickets.next());
          expect(after.filter((id) => id % 2 === 0).length).toBeGreaterThanOrEqual(4);
          expect(new Set([...before, ...during, ...after]).size).toBe(62);
        } finally {
          await stable.drop();
        }
      });

      it('BatchedDbIds waits through a short outage and gives BATCH_UNAVAILABLE on a long one', async () => {
        const ids = new BatchedDbIds(executor, { batchSize: 50, waitTimeoutMs: 300, retry });
        const taken = [await ids.next()];
        await outage.crash();
        while (ids.remaining > 0) taken.push((await ids.next()) as bigint);
        await expectSheafRejection(ids.next(), 'BATCH_UNAVAILABLE', 'no batch arrived within 300 ms');
        await outage.start();
        taken.push(await ids.next());
        expect(new Set(taken).size).toBe(taken.length);
        expect(taken[taken.length - 1]! > taken[taken.length - 2]!).toBe(true);
        await ids.close();
      });
    },
  );
}
