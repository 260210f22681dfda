import { install, mysql2Executor, pgExecutor, pgliteExecutor, type SqlExecutor, TicketClient } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createTicket } from '../support/generator-sql.js';
import { freshPglite } from '../support/pglite-template.js';
import { mysqlUrl, pgUrl, type TargetName, withDatabase } from '../support/targets.js';

/** A second ticket server that the test can take down for real: a dropped database, a closed PGlite. */
async function secondServer(
  target: TargetName,
): Promise<{ executor: SqlExecutor; takeDown(): Promise<void>; close(): Promise<void> }> {
  if (target === 'pglite') {
    const db = await freshPglite();
    const takeDown = async () => (db.closed ? undefined : db.close());
    return { executor: pgliteExecutor(db), takeDown, close: takeDown };
  }
  const name = `sheaf_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}_tickets`;
  const server = target === 'mariadb' ? mysqlServer : postgresServer;
  await server.admin(`create database ${name}`);
  const { executor, close } = server.open(name);
  let down = false;
  return {
    executor,
    async takeDown() {
      if (down) return;
      down = true;
      await server.admin(`drop database ${name}${target === 'mariadb' ? '' : ' with (force)'}`);
      // sheaf's own database beside it, which install() made there.
      if (target === 'mariadb') await server.admin(`drop database if exists sheaf_${name}`);
    },
    close,
  };
}

interface Server {
  admin(statement: string): Promise<void>;
  open(name: string): { executor: SqlExecutor; close(): Promise<void> };
}

const postgresServer: Server = {
  async admin(statement) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  },
  open(name) {
    const pool = new pg.Pool({ connectionString: withDatabase(pgUrl, name), max: 2 });
    // The forced drop kills its connections, idle or busy: neither may surface as unhandled.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    return { executor: pgExecutor(pool), close: () => pool.end().catch(() => undefined) };
  },
};

// On MariaDB the connections survive the drop; the ticket function is gone, so each call fails.
const mysqlServer: Server = {
  async admin(statement) {
    const connection = await mysql.createConnection({ uri: mysqlUrl });
    await connection.query(statement);
    await connection.end();
  },
  open(name) {
    const pool = mysql.createPool({ uri: withDatabase(mysqlUrl, name), connectionLimit: 2 });
    return { executor: mysql2Executor(pool), close: () => pool.end() };
  },
};

describeTargets('TicketClient', (db, target) => {
  let second: Awaited<ReturnType<typeof secondServer>>;
  const retry = { minMs: 50, maxMs: 100 };

  beforeAll(async () => {
    second = await secondServer(target);
    for (const [executor, offset] of [
      [db().executor, 1],
      [second.executor, 2],
    ] as const) {
      await install(executor);
      await createTicket(executor, 'orders', 2, offset);
    }
  });
  afterAll(async () => {
    await second.takeDown();
    await second.close();
  });

  it('takes turns among the servers, keeps working with one of two down, and fails only when all are', async () => {
    const tickets = new TicketClient([db().executor, second.executor], { name: 'orders', ids: 'number', retry });
    const first = [];
    for (let i = 0; i < 10; i++) first.push(await tickets.next());
    expect(first).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await second.takeDown();
    const during = [];
    for (let i = 0; i < 20; i++) during.push(await tickets.next());
    expect(during).toEqual(Array.from({ length: 20 }, (_, i) => 11 + 2 * i));
    const [up, down] = tickets.servers();
    expect(up).toMatchObject({ index: 0, up: true, failures: 0 });
    expect(down).toMatchObject({ index: 1, up: false });
    expect(down!.failures).toBeGreaterThanOrEqual(1);
    // Only the first server is left: a client without it has nowhere to go. On MariaDB the dropped
    // database's connections live on and say sheaf_ticket_series (read before the first ticket) does
    // not exist: to a client that was never served there, a server without sheaf (NOT_INSTALLED, a
    // mistake like UNKNOWN_TICKET).
    const stranded = new TicketClient([second.executor], { name: 'orders', retry });
    if (target === 'mariadb') await expectSheafRejection(stranded.next(), 'NOT_INSTALLED', 'sheaf_ticket_series');
    else await expectSheafRejection(stranded.next(), 'TICKETS_UNAVAILABLE', 'all 1 ticket servers are down');
  });

  it('tries a server still in its backoff before giving up, when the servers due have failed', async () => {
    // A real server behind a switch: the outage is the client's view, the tickets are real.
    const switchable = (executor: SqlExecutor) => {
      const server: { down: boolean; executor: SqlExecutor } = {
        down: false,
        executor: {
          dialect: executor.dialect,
          query: (sql, params) =>
            server.down ? Promise.reject(new Error('connect ECONNREFUSED')) : executor.query(sql, params),
          session: (work) => executor.session(work),
        },
      };
      return server;
    };
    // Two databases: the client refuses one ticket server twice (both would hand out 1, 3, …).
    const other = await secondServer(target);
    await install(other.executor);
    await createTicket(other.executor, 'orders', 2, 2);
    const a = switchable(db().executor);
    const b = switchable(other.executor);
    const tickets = new TicketClient([a.executor, b.executor], {
      name: 'orders',
      retry: { minMs: 60_000, maxMs: 60_000 },
    });
    a.down = true;
    await tickets.next();
    expect(tickets.servers()[0]).toMatchObject({ up: false });
    a.down = false;
    b.down = true;
    // b is due and fails; a is back but would not be due for a minute.
    await expect(tickets.next()).resolves.toBeTypeOf('bigint');
    expect(tickets.servers().map((server) => server.up)).toEqual([true, false]);
    await other.takeDown();
    await other.close();
  });

  it('passes a coded database error through instead of failing over', async () => {
    const tickets = new TicketClient([db().executor], { name: 'no_such_ticket' });
    await expectSheafRejection(tickets.next(), 'UNKNOWN_TICKET', "'no_such_ticket'");
    expect(tickets.servers()[0]!.up).toBe(true);
    await tickets.close();
    await expectSheafRejection(tickets.next(), 'GENERATOR_CLOSED');
  });
});
