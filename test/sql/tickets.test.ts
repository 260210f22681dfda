import { install, pgExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { dropPgDatabase } from '../support/drop-pg-database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { lockWaiters } from '../support/lock-waits.js';
import { pgUrl, withDatabase } from '../support/targets.js';

async function next(executor: SqlExecutor, name: string, count = 1): Promise<bigint[]> {
  const rows = await executor.query<{ v: string }>(
    'select sheaf.next_ticket($1)::text as v from generate_series(1, $2::int)',
    [name, count],
  );
  return rows.map((row) => BigInt(row.v));
}

const create = (executor: SqlExecutor, name: unknown, step?: unknown, offset?: unknown) =>
  executor.query('select sheaf.create_ticket($1, $2, $3)', [name, step ?? 1, offset ?? 1]);

/** The first `count` members of offset, offset + step, …, as bigints. */
const progression = (offset: number, step: number, count: number) =>
  Array.from({ length: count }, (_, i) => BigInt(offset + i * step));

describeTargets(
  'sheaf.create_ticket and sheaf.next_ticket',
  (db) => {
    const sql = () => db().executor;

    beforeAll(async () => {
      await install(sql());
    });

    it('hands out 1, 2, 3… by default', async () => {
      await sql().query("select sheaf.create_ticket('plain')");
      expect(await next(sql(), 'plain', 5)).toEqual(progression(1, 1, 5));
    });

    it('two tickets with step 2, offsets 1 and 2, stand for two servers: odd and even, never equal', async () => {
      await create(sql(), 'server-1', 2, 1);
      await create(sql(), 'server-2', 2, 2);
      const odd: bigint[] = [];
      const even: bigint[] = [];
      for (let round = 0; round < 50; round++) {
        odd.push(...(await next(sql(), 'server-1', 20)));
        even.push(...(await next(sql(), 'server-2', 20)));
      }
      expect(odd).toEqual(progression(1, 2, 1000));
      expect(even).toEqual(progression(2, 2, 1000));
    });

    it('is idempotent for the same step and offset, and refuses another definition (NAME_TAKEN)', async () => {
      await create(sql(), 'twice', 3, 2);
      await create(sql(), 'twice', 3, 2);
      expect(await next(sql(), 'twice', 3)).toEqual(progression(2, 3, 3));
      await expectSheafRejection(
        create(sql(), 'twice', 3, 1),
        'NAME_TAKEN',
        "ticket 'twice' already exists with step 3 and offset 2, not step 3 and offset 1",
      );
      await expectSheafRejection(create(sql(), 'twice', 4, 2), 'NAME_TAKEN', 'step 4');
      expect(await next(sql(), 'twice')).toEqual([11n]);
    });

    it('treats names as data: quotes, SQL, long and non-ASCII names each get a sequence of their own', async () => {
      const names = [
        'x"; drop table sheaf.tickets; --',
        "o'brien",
        'sheaf.tickets',
        'Ticket With Spaces',
        'ticket_1',
        'ü-漢字-🎟',
        'n'.repeat(300),
        `${'n'.repeat(299)}m`,
      ];
      for (const [index, name] of names.entries()) await create(sql(), name, 10, index + 1);
      for (const [index, name] of names.entries()) {
        expect(await next(sql(), name, 2), name).toEqual(progression(index + 1, 10, 2));
      }
      const rows = await sql().query<{ sequence: string }>(
        'select sequence::text as sequence from sheaf.tickets where name = any($1)',
        [names],
      );
      expect(rows).toHaveLength(names.length);
      for (const row of rows) expect(row.sequence).toMatch(/^sheaf\.ticket_\d+$/);
    });

    it('never hands out again a value taken in a rolled-back transaction', async () => {
      await create(sql(), 'rollback');
      const taken = await sql().session(async (session) => {
        await session.query('begin');
        const values = await next(session, 'rollback', 3);
        await session.query('rollback');
        return values;
      });
      expect(taken).toEqual([1n, 2n, 3n]);
      expect(await next(sql(), 'rollback')).toEqual([4n]);
    });

    it('raises UNKNOWN_TICKET naming an unknown ticket, INVALID_ARGUMENT for a null name', async () => {
      await expectSheafRejection(next(sql(), 'no such ticket'), 'UNKNOWN_TICKET', "unknown ticket 'no such ticket'");
      await expectSheafRejection(next(sql(), null as unknown as string), 'INVALID_ARGUMENT', 'not null');
    });

    it('refuses bad definitions with INVALID_ARGUMENT naming the value', async () => {
      const cases: [unknown, unknown, unknown, string][] = [
        [null, 1, 1, 'ticket name must be non-empty text, not null'],
        ['', 1, 1, "ticket name must be non-empty text, not ''"],
        ['bad', 0, 1, "ticket 'bad': step must be at least 1, not 0"],
        ['bad', -3, 1, 'not -3'],
        ['bad', 2, 0, "ticket 'bad': offset must be from 1 to step 2, not 0"],
        ['bad', 2, 3, 'offset must be from 1 to step 2, not 3'],
        ['bad', 2, -1, 'not -1'],
      ];
      for (const [name, step, offset, message] of cases) {
        await expectSheafRejection(create(sql(), name, step, offset), 'INVALID_ARGUMENT', message);
      }
      await expectSheafRejection(
        sql().query("select sheaf.create_ticket('bad', null)"),
        'INVALID_ARGUMENT',
        'step must be at least 1, not null',
      );
      await expectSheafRejection(
        sql().query("select sheaf.create_ticket('bad', 2, null)"),
        'INVALID_ARGUMENT',
        'offset must be from 1 to step 2, not null',
      );
      const [row] = await sql().query<{ n: number }>("select count(*)::int as n from sheaf.tickets where name = 'bad'");
      expect(row?.n).toBe(0);
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'tickets under concurrency',
  (db) => {
    const open = (count: number) => db().sessions(count);
    // The second ticket server: a database of its own on the same PostgreSQL server.
    const secondName = `sheaf_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}_2`;

    beforeAll(async () => {
      await install(db().executor);
    });
    afterAll(async () => {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await dropPgDatabase(admin, secondName);
      await admin.end();
    });

    it('does not wait for a transaction that took a ticket and stays open', async () => {
      const [a, b] = await open(2);
      await create(a!, 'open-transaction');
      await a!.query('begin');
      try {
        expect(await next(a!, 'open-transaction')).toEqual([1n]);
        await b!.query("set statement_timeout = '2s'");
        expect(await next(b!, 'open-transaction')).toEqual([2n]);
      } finally {
        await a!.query('rollback');
        await b!.query('reset statement_timeout');
      }
    });

    it('two sessions creating one ticket at once: one ticket, no stray sequence; a different definition loses', async () => {
      const [a, b] = await open(2);
      const strays = () =>
        db().executor.query<{ n: number }>(
          `select ((select count(*) from pg_class where relnamespace = 'sheaf'::regnamespace and relkind = 'S'
             and relname ~ '^ticket_[0-9]+$') - (select count(*) from sheaf.tickets))::int as n`,
        );
      for (const [name, rival, outcome] of [
        ['race-same', [2, 1], 'created'],
        ['race-other', [3, 1], 'NAME_TAKEN'],
      ] as const) {
        await a!.query('begin');
        await create(a!, name, 2, 1);
        const pending = create(b!, name, ...rival).then(
          () => 'created',
          (error: unknown) => (error as { code?: string }).code,
        );
        await lockWaiters(db().executor, 1);
        await a!.query('commit');
        expect(await pending).toBe(outcome);
      }
      expect((await strays())[0]?.n).toBe(0);
      expect(await next(db().executor, 'race-same')).toEqual([1n]);
    });

    it('two ticket databases, 8 clients each: odd and even interleave, 11,200 tickets without a collision', async () => {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`create database ${secondName}`);
      await admin.end();
      const secondPool = new pg.Pool({ connectionString: withDatabase(pgUrl, secondName), max: 8 });
      // pool.end() resolves before its clients' sockets are closed, and afterAll drops the database
      // with force: a client still closing then gets 57P01, which must not surface as unhandled.
      secondPool.on('connect', (client) => client.on('error', () => undefined));
      secondPool.on('error', () => undefined);
      try {
        const servers = [db().executor, pgExecutor(secondPool)];
        await install(servers[1]!);
        await create(servers[0]!, 'orders', 2, 1);
        await create(servers[1]!, 'orders', 2, 2);
        const firstClients = await open(8);
        const secondClients = await Promise.all(
          Array.from({ length: 8 }, async () => {
            const client = await secondPool.connect();
            return { executor: pgExecutor(client), release: () => client.release() };
          }),
        );
        const clients = [
          ...firstClients.map((executor) => ({ server: 0, executor })),
          ...secondClients.map(({ executor }) => ({ server: 1, executor })),
        ];
        const perClient = 700;
        const drawn = await Promise.all(
          clients.map(async ({ server, executor }) => {
            const values: bigint[] = [];
            for (let i = 0; i < perClient; i++) values.push(...(await next(executor, 'orders')));
            return { server, values };
          }),
        );
        for (const client of secondClients) client.release();
        for (const { server, values } of drawn) {
          for (let i = 1; i < values.length; i++) expect(values[i]! > values[i - 1]!).toBe(true);
          expect(values.every((value) => value % 2n === (server === 0 ? 1n : 0n))).toBe(true);
        }
        const all = drawn.flatMap(({ values }) => values).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        // Each server handed out an unbroken run of its progression, so together they are 1 … 11,200.
        expect(all).toEqual(progression(1, 1, 16 * perClient));
      } finally {
        await secondPool.end();
      }
    });
  },
  { only: ['postgres'] },
);
