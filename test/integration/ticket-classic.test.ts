import { classicTickets, install, TicketClient, type TicketSource } from '@sheaf/core';
import mariadb from 'mariadb';
import mysql from 'mysql2/promise';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Call,
  duplicates,
  flickrTable,
  load,
  mariadbClassic,
  postgresClassic,
  sleep,
} from '../support/classic-tickets.js';
import { openDatabase } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createTicket } from '../support/generator-sql.js';
import { selectedTargets } from '../support/targets.js';

const targets = selectedTargets();
const noMariadb = !targets.includes('mariadb');
const noPostgres = !targets.includes('postgres');

// A frozen server costs a caller a second; the live one may be that slow on a busy 2-core machine
// (200 ms was not: with one server frozen, a slow answer from the other was TICKETS_UNAVAILABLE).
const failover = { queryTimeoutMs: 1000, retry: { minMs: 100, maxMs: 300 } };
// Where no server is down: a server slower than the timeout would count as down, and a check that
// should refuse would pass it over instead (the machine may be busy with other suites).
const patient = { queryTimeoutMs: 30_000 };

/**
 * The databases of the running test: their pools closed after it (each holds up to 16 connections,
 * and the suite shares the server's connection limit with other files), dropped when it passed.
 */
const opened: { close(passed: boolean): Promise<void> }[] = [];
let passed = true;
beforeEach(({ onTestFailed }) => {
  passed = true;
  onTestFailed(() => {
    passed = false;
  });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close(passed)));
});
const keep = <S extends { close(passed: boolean): Promise<void> }>(server: S): S => {
  opened.push(server);
  return server;
};

/** `host`, `port` or `user` of a mysql:// URL, as the mariadb driver's options take them. */
function urlPart(url: string, key: string): string | number {
  const parsed = new URL(url);
  if (key === 'port') return Number(parsed.port || 3306);
  return key === 'host' ? parsed.hostname : decodeURIComponent(parsed.username);
}

/** What a run under load saw, for the assertions and the log line. */
function summary(calls: readonly Call[], outage: { lockedAt: number; unlockedAt: number }) {
  const during = calls.filter((call) => call.start >= outage.lockedAt && call.end <= outage.unlockedAt);
  return {
    tickets: calls.length,
    duplicates: duplicates(calls).length,
    during: during.length,
    evenDuring: during.filter((call) => call.id % 2n === 0n).length,
    evenBefore: calls.filter((call) => call.end < outage.lockedAt && call.id % 2n === 0n).length,
    evenAfter: calls.filter((call) => call.start > outage.unlockedAt && call.id % 2n === 0n).length,
  };
}

/** A client over an odd and an even server of step 2, checked; its statuses for each kind's own assertions. */
async function oddEvenClient(odd: TicketSource, even: TicketSource) {
  const tickets = new TicketClient([odd, even], { name: 'Tickets64', ...failover });
  const statuses = await tickets.check();
  expect(statuses.map(({ step, offset }) => [step, offset])).toEqual([
    [2, 1],
    [2, 2],
  ]);
  return { tickets, statuses };
}

/**
 * 16 callers take tickets while `freeze` blocks the even server mid-run: no duplicate, no error,
 * only odd tickets meanwhile.
 */
async function expectOddWhileEvenFrozen(
  label: string,
  next: () => Promise<bigint>,
  freeze: () => Promise<{ lockedAt: number; unlockedAt: number }>,
): Promise<void> {
  let outage = { lockedAt: 0, unlockedAt: 0 };
  const { calls, errors } = await load(next, 16, async () => {
    await sleep(500);
    outage = await freeze();
    await sleep(1300);
  });
  const seen = summary(calls, outage);
  console.info(`${label}:`, JSON.stringify({ ...seen, errors: errors.length }));
  expect(errors.map(String)).toEqual([]);
  expect(seen.duplicates).toBe(0);
  expect(seen.during).toBeGreaterThan(50);
  expect(seen.evenDuring).toBe(0);
  // Both servers served before the outage, and the frozen one again after it.
  expect(seen.evenBefore).toBeGreaterThan(0);
  expect(seen.evenAfter).toBeGreaterThan(0);
}

describe.skipIf(noMariadb)('classic Tickets64 on MariaDB', () => {
  it.each(['MyISAM', 'Aria', 'InnoDB'])(
    '%s: 16 callers, the even server frozen mid-run: no duplicate, no error, only odd tickets meanwhile',
    async (engine) => {
      const odd = keep(await mariadbClassic(2, 1));
      const even = keep(await mariadbClassic(2, 2));
      for (const server of [odd, even]) await server.admin(flickrTable('Tickets64', engine));
      const { tickets, statuses } = await oddEvenClient(classicTickets(odd.pool), classicTickets(even.pool));
      expect(statuses[1]!.series).toMatch(
        new RegExp(`^${even.name} on .+:3306: table Tickets64, auto_increment_increment 2, auto_increment_offset 2$`),
      );
      await expectOddWhileEvenFrozen(
        `classic ${engine} on MariaDB`,
        () => tickets.next(),
        () => even.freeze('Tickets64', 2000),
      );
    },
  );

  it('refuses step 2 at offsets 1 and 3, naming both servers and 1, the first value both hand out', async () => {
    const a = keep(await mariadbClassic(2, 1));
    const b = keep(await mariadbClassic(2, 3));
    for (const server of [a, b]) await server.admin(flickrTable('Tickets64', 'MyISAM'));
    const tickets = new TicketClient([classicTickets(a.pool), classicTickets(b.pool)], {
      name: 'Tickets64',
      ...patient,
    });
    const error = await expectSheafRejection(
      tickets.check(),
      'TICKETS_OVERLAP',
      `server 1 (${a.name} on `,
      'auto_increment_increment 2, auto_increment_offset 1) and server 2',
      `(${b.name} on `,
      'auto_increment_offset 3) both hand out 1, then every 2',
    );
    expect(error.details).toMatchObject({ first: '1', every: '2' });
    // For good, and before any ticket was taken.
    await expectSheafRejection(tickets.next(), 'TICKETS_OVERLAP', 'both hand out 1');
    const [[row]] = await a.pool.query<mysql.RowDataPacket[]>('select count(*) as n from Tickets64');
    expect(Number(row!.n)).toBe(0);
  });

  it('refuses a server at the default step 1 beside another one', async () => {
    const a = keep(await mariadbClassic(2, 1));
    const b = keep(await mariadbClassic());
    for (const server of [a, b]) await server.admin(flickrTable('Tickets64', 'InnoDB'));
    const tickets = new TicketClient([classicTickets(a.pool), classicTickets(b.pool)], {
      name: 'Tickets64',
      ...patient,
    });
    await expectSheafRejection(
      tickets.next(),
      'TICKETS_OVERLAP',
      `server 2 (${b.name} on `,
      'auto_increment_increment 1',
      'hands out every value (step 1), so it meets the other server: give each of the 2 servers the same step of at least 2',
    );
    // One server alone may hand out every value.
    const alone = new TicketClient([classicTickets(b.pool)], { name: 'Tickets64', ids: 'number', ...patient });
    expect([await alone.next(), await alone.next()]).toEqual([1, 2]);
  });

  it('mixes a classic table with a sheaf ticket, and refuses them when their series meet', async () => {
    const classic = keep(await mariadbClassic(2, 1));
    await classic.admin(flickrTable('Tickets64', 'Aria'));
    const sheaf = keep(await openDatabase('mariadb'));
    await install(sheaf.database.executor);
    await createTicket(sheaf.database.executor, 'even', 2, 2);
    await createTicket(sheaf.database.executor, 'clash', 4, 3);
    const mixed = new TicketClient([classicTickets(classic.pool), sheaf.database.executor], {
      name: 'even',
      ids: 'number',
      ...patient,
    });
    const ids = await Promise.all(Array.from({ length: 40 }, () => mixed.next()));
    expect(new Set(ids).size).toBe(40);
    expect(new Set(ids.map((id) => id % 2))).toEqual(new Set([0, 1]));
    expect(mixed.servers()[1]).toMatchObject({
      step: 2,
      offset: 2,
      series: expect.stringContaining("sheaf ticket 'even'"),
    });
    const clash = new TicketClient([classicTickets(classic.pool), sheaf.database.executor], {
      name: 'clash',
      ...patient,
    });
    await expectSheafRejection(
      clash.check(),
      'TICKETS_OVERLAP',
      "sheaf ticket 'clash', step 4, offset 3) both hand out 3, then every 4",
    );
  });

  it('reads the same tables through pools of the mariadb driver, its settings from initSql', async () => {
    const odd = keep(await mariadbClassic(2, 1));
    const even = keep(await mariadbClassic(2, 2));
    for (const server of [odd, even]) await server.admin(flickrTable('Tickets64', 'InnoDB'));
    const pools = [odd, even].map((server, i) =>
      mariadb.createPool({
        ...Object.fromEntries(['host', 'port', 'user'].map((key) => [key, urlPart(server.url, key)])),
        database: server.name,
        connectionLimit: 4,
        initSql: `set session auto_increment_increment = 2, auto_increment_offset = ${i + 1}`,
      }),
    );
    try {
      const tickets = new TicketClient(
        pools.map((pool) => classicTickets(pool)),
        { name: 'Tickets64', ids: 'number', ...patient },
      );
      const ids = await Promise.all(Array.from({ length: 100 }, () => tickets.next()));
      expect(new Set(ids).size).toBe(100);
      expect(new Set(ids.map((id) => id % 2))).toEqual(new Set([0, 1]));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('takes turns on a single connection, and refuses a ticket off the series it checked', async () => {
    const server = keep(await mariadbClassic());
    await server.admin(flickrTable('Tickets64', 'InnoDB'));
    const connection = await mysql.createConnection({ uri: server.url });
    try {
      await connection.query('set session auto_increment_increment = 2, auto_increment_offset = 2');
      // One connection is one session for every caller: REPLACE, REPLACE, SELECT, SELECT would give
      // two callers one ticket.
      const tickets = new TicketClient([classicTickets(connection)], { name: 'Tickets64', ids: 'number', ...patient });
      const ids = await Promise.all(Array.from({ length: 200 }, () => tickets.next()));
      expect(new Set(ids).size).toBe(200);
      expect(ids.every((id) => id % 2 === 0)).toBe(true);
      await connection.query('set session auto_increment_offset = 1');
      await expectSheafRejection(
        tickets.next(),
        'TICKETS_OVERLAP',
        // InnoDB moves its counter to the next value of the new series after 400: 401 or 403.
        '(the connection it came from has auto_increment_increment 2, auto_increment_offset 1), which is not 2 + k·2',
      );
    } finally {
      await connection.end();
    }
  });

  it('quotes hostile table names, and refuses a missing table, a table without a unique stub, a long stub', async () => {
    const server = keep(await mariadbClassic());
    const hostile = 'Tick`ets"; drop table x; -- ';
    const table = 'Tick``ets"; drop table x; -- x';
    await server.admin(flickrTable(`\`${table}\``, 'MyISAM'));
    const tickets = new TicketClient([classicTickets(server.pool, { table: `${hostile}x`, stub: 'b' })], {
      name: 't',
      ids: 'number',
      ...patient,
    });
    expect([await tickets.next(), await tickets.next()]).toEqual([1, 2]);
    const [rows] = await server.pool.query<mysql.RowDataPacket[]>(`select id, stub from \`${table}\``);
    expect(rows).toEqual([{ id: 2, stub: 'b' }]);

    const client = (options: Parameters<typeof classicTickets>[1]) =>
      new TicketClient([classicTickets(server.pool, options)], { name: 't', ...patient });
    await expectSheafRejection(client({}).check(), 'UNKNOWN_TABLE', `no ticket table "Tickets64" in ${server.name}`);
    await server.admin('create table loose (id bigint not null auto_increment primary key, stub char(1) not null)');
    await expectSheafRejection(client({ table: 'loose' }).check(), 'UNSUPPORTED_KEY', 'stub column has no unique key');
    await expectSheafRejection(
      client({ table: `${hostile}x`, stub: 'ab' }).check(),
      'INVALID_ARGUMENT',
      'stub "ab" is longer than',
      '(1 characters)',
    );
    for (const [table, fragment] of [
      ['', 'table "" is empty'],
      ['x'.repeat(65), 'has 65 characters: MySQL names have at most 64'],
      ['a\0b', 'NUL'],
      ['trailing ', 'ends with a space'],
      ['emoji\u{1F600}', 'above U+FFFF'],
      [42, 'table 42 is not text'],
    ] as const) {
      expectSheafError(() => classicTickets(server.pool, { table: table as string }), 'INVALID_ARGUMENT', fragment);
    }
    expectSheafError(() => classicTickets(server.pool, { stub: 1 as never }), 'INVALID_ARGUMENT', 'stub 1 is not text');
  });
});

describe.skipIf(noPostgres)('classic ticket tables on PostgreSQL', () => {
  /** Flickr's table on PostgreSQL: the id sequence steps by `step` from `start`. */
  const pgTable = (table: string, step: number, start: number, identity: 'always' | 'by default') =>
    `create table ${table} (id bigint generated ${identity} as identity (increment by ${step} start with ${start}) ` +
    "primary key, stub char(1) not null default '' unique)";

  it('16 callers, the even server frozen mid-run: no duplicate, no error, only odd tickets meanwhile', async () => {
    const odd = keep(await postgresClassic());
    const even = keep(await postgresClassic());
    await odd.admin(pgTable('"Tickets64"', 2, 1, 'by default'));
    // GENERATED ALWAYS is updated to DEFAULT, which draws twice: the even tickets step by 4.
    await even.admin(pgTable('"Tickets64"', 2, 2, 'always'));
    const { tickets, statuses } = await oddEvenClient(classicTickets(odd.pool), classicTickets(even.pool));
    expect(statuses[0]!.series).toContain('table Tickets64, sequence "Tickets64_id_seq" increment 2 start 1');
    await expectOddWhileEvenFrozen(
      'classic on PostgreSQL',
      () => tickets.next(),
      () => even.freeze('"Tickets64"', 2000),
    );
  });

  it('quotes hostile names and refuses overlapping sequences and missing tables', async () => {
    const a = keep(await postgresClassic());
    const b = keep(await postgresClassic());
    const hostile = `Tick"ets'; drop table x; --`;
    const quoted = `"Tick""ets'; drop table x; --"`;
    await a.admin('create schema "we""ird"');
    await a.admin(pgTable(`"we""ird".${quoted}`, 2, 1, 'by default'));
    await b.admin(pgTable(quoted, 2, 3, 'by default'));
    const ok = new TicketClient([classicTickets(a.pool, { schema: 'we"ird', table: hostile })], {
      name: 't',
      ids: 'number',
      ...patient,
    });
    expect([await ok.next(), await ok.next()]).toEqual([1, 3]);
    const clash = new TicketClient(
      [classicTickets(a.pool, { schema: 'we"ird', table: hostile }), classicTickets(b.pool, { table: hostile })],
      { name: 't', ...patient },
    );
    await expectSheafRejection(
      clash.check(),
      'TICKETS_OVERLAP',
      `(${b.name}`,
      'start 3) both hand out 3, then every 2',
    );
    await expectSheafRejection(
      new TicketClient([classicTickets(b.pool)], { name: 't', ...patient }).check(),
      'UNKNOWN_TABLE',
      `no ticket table "Tickets64" in ${b.name}`,
    );
    expectSheafError(
      () => classicTickets(b.pool, { table: 'é'.repeat(32) }),
      'INVALID_ARGUMENT',
      'has 64 bytes: PostgreSQL names have at most 63',
    );
  });
});

describe.skipIf(noMariadb || noPostgres)('a mixed pool across servers and kinds', () => {
  it('classic MariaDB, sheaf on PostgreSQL and classic PostgreSQL at step 3: every residue, no duplicate', async () => {
    const classicMaria = keep(await mariadbClassic(3, 1));
    await classicMaria.admin(flickrTable('Tickets64', 'InnoDB'));
    const sheaf = keep(await openDatabase('postgres'));
    await install(sheaf.database.executor);
    await createTicket(sheaf.database.executor, 'Tickets64', 3, 2);
    const classicPg = keep(await postgresClassic());
    await classicPg.admin(
      "create table tickets64 (id bigserial primary key, stub char(1) not null default '' unique); " +
        'alter sequence tickets64_id_seq increment by 3 start with 3 restart',
    );
    const tickets = new TicketClient(
      [
        classicTickets(classicMaria.pool),
        sheaf.database.executor,
        classicTickets(classicPg.pool, { table: 'tickets64' }),
      ],
      { name: 'Tickets64', ...patient },
    );
    const { calls, errors } = await load(
      () => tickets.next(),
      16,
      () => sleep(600),
    );
    expect(errors.map(String)).toEqual([]);
    expect(duplicates(calls)).toEqual([]);
    const residues = new Set(calls.map((call) => call.id % 3n));
    expect(residues, JSON.stringify(tickets.servers())).toEqual(new Set([0n, 1n, 2n]));
    expect(tickets.servers().map(({ step, offset }) => [step, offset])).toEqual([
      [3, 1],
      [3, 2],
      [3, 3],
    ]);
    await tickets.close();
  });
});
