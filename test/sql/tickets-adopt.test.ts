// sheaf.adopt_ticket / sheaf_adopt_ticket: a ticket that starts above the tickets of the classic
// servers it takes over, on every dialect in one loop; refusals leave the tickets as they were.
import { type DialectName, grant, install, type SqlExecutor, uninstall } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mysqlFiles } from '../../packages/core/src/install/files.generated.js';
import { statementsOf } from '../../packages/core/src/install/sql-file.js';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';
import { queryState } from '../support/state-sql.js';

const sqlOf: Record<DialectName, { adopt: string; next: string; create: string; state: string }> = {
  postgres: {
    adopt: 'select first_ticket::text as first_ticket, created from sheaf.adopt_ticket($1, $2, $3, $4, $5)',
    next: 'select sheaf.next_ticket($1)::text as t',
    create: 'select sheaf.create_ticket($1, $2, $3)',
    state: `select t.name, t.step, t."offset", s.seqstart::text as start, pg_sequence_last_value(t.sequence)::text as last,
        pg_sequence_last_value('sheaf.ticket_numbers')::text as numbers
      from sheaf.tickets t join pg_sequence s on s.seqrelid = t.sequence order by t.name`,
  },
  mysql: {
    adopt: 'call {state}.sheaf_adopt_ticket(?, ?, ?, ?, ?)',
    next: 'select cast(sheaf_next_ticket(?) as char) as t',
    create: 'call {state}.sheaf_create_ticket(?, ?, ?)',
    state: `select name, step, ticket_offset, cast(counter_shift as char) as shift, cast(first_ticket as char) as first,
        (select cast(auto_increment as char) from information_schema.tables
          where table_schema = {state_text} and table_name = 'sheaf_ticket_counter') as counter
      from {state}.sheaf_tickets order by name`,
  },
};

describeTargets('sheaf adopt_ticket: a ticket starting above the classic servers it takes over', (db, target) => {
  const sql = () => db().executor;
  const dialect = () => sqlOf[sql().dialect.name];
  const adopt = async (name: unknown, step: unknown, offset: unknown, above: unknown, headroom: unknown = 0) => {
    const [row] = await queryState<{ first_ticket: unknown; created: unknown }>(sql(), dialect().adopt, [
      name,
      step,
      offset,
      above,
      headroom,
    ]);
    return { first: BigInt(String(row?.first_ticket)), created: [true, 1, '1'].includes(row?.created as never) };
  };
  const next = async (name: string, count = 1, on: SqlExecutor = sql()) => {
    const out: bigint[] = [];
    for (let i = 0; i < count; i++)
      out.push(BigInt(String((await on.query<{ t: unknown }>(dialect().next, [name]))[0]?.t)));
    return out;
  };
  const state = () => queryState(sql(), dialect().state);
  /** A later ticket of 'orders' (step 2, offset 1) than `after`: MySQL's shared counter may skip values. */
  const expectInSeries = ([ticket]: bigint[], after: bigint) => {
    expect(ticket! % 2n).toBe(1n);
    expect(ticket).toBeGreaterThan(after);
  };

  beforeAll(async () => {
    await install(sql());
  });

  it('starts a new ticket at the first value of its series above `above` plus `headroom` tickets', async () => {
    await queryState(sql(), dialect().create, ['before', 1, 1]);
    expect(await next('before', 3)).toEqual([1n, 2n, 3n]);
    expect(await adopt('orders', 2, 1, 1000, 10)).toEqual({ first: 1021n, created: true });
    expect(await next('orders', 3)).toEqual([1021n, 1023n, 1025n]);
    // Above a value of the series itself, with nothing handed out yet, and up to the largest bigint.
    // (On MySQL/MariaDB every name of a server takes one shared counter: a ticket's next value is
    // its first only while no other name draws in between.)
    expect(await adopt('evens', 2, 2, 1000, 0)).toEqual({ first: 1002n, created: true });
    expect(await next('evens')).toEqual([1002n]);
    expect(await adopt('fresh', 3, 3, 0, 0)).toEqual({ first: 3n, created: true });
    expect(await next('fresh')).toEqual([3n]);
    expect(await adopt('edge', 2, 1, '9223372036854775806', 0)).toEqual({ first: 9223372036854775807n, created: true });
    // A name created before keeps its own series: MySQL's counter, shared by all names, is not moved.
    const [after] = await next('before');
    expect(after).toBeGreaterThan(3n);
    expect(after).toBeLessThan(20n);
  });

  it('is idempotent: the same call again, or one with a lower above, changes nothing', async () => {
    const before = await state();
    expect(await adopt('orders', 2, 1, 1000, 10)).toEqual({ first: 1021n, created: false });
    expect(await adopt('orders', 2, 1, 1020, 0)).toEqual({ first: 1021n, created: false });
    expect(await adopt('orders', 2, 1, 0, 500)).toEqual({ first: 1021n, created: false });
    expect(await state()).toEqual(before);
    expectInSeries(await next('orders'), 1025n);
  });

  it('refuses a ticket that does not start above `above`, another series, overflow and bad arguments, changing nothing', async () => {
    await queryState(sql(), dialect().create, ['legacy', 2, 1]);
    await next('legacy', 3);
    const before = await state();
    await expectSheafRejection(
      adopt('orders', 2, 1, 1021),
      'TICKETS_OVERLAP',
      "ticket 'orders' already starts at 1021, not above 1021",
    );
    await expectSheafRejection(adopt('orders', 2, 1, 5000, 0), 'TICKETS_OVERLAP', 'not above 5000');
    await expectSheafRejection(
      adopt('legacy', 2, 1, 100),
      'TICKETS_OVERLAP',
      "ticket 'legacy' already starts at 1, not above 100",
    );
    await expectSheafRejection(
      adopt('orders', 2, 2, 0),
      'NAME_TAKEN',
      'with step 2 and offset 1, not step 2 and offset 2',
    );
    await expectSheafRejection(
      adopt('huge', 2, 2, '9223372036854775806', 0),
      'ID_OUT_OF_RANGE',
      "ticket 'huge' cannot start above 9223372036854775806 plus 0 tickets of step 2",
    );
    await expectSheafRejection(
      adopt('huge', 3, 1, '9223372036854775000', 1000),
      'ID_OUT_OF_RANGE',
      'past 9223372036854775807',
    );
    for (const [args, fragment] of [
      [[null, 2, 1, 0, 0], 'ticket name must be non-empty text, not null'],
      [['', 2, 1, 0, 0], "ticket name must be non-empty text, not ''"],
      [['bad', 0, 1, 0, 0], 'step'],
      [['bad', 2, 3, 0, 0], 'offset'],
      [['bad', 2, 1, -1, 0], 'above'],
      [['bad', 2, 1, 0, -1], 'headroom'],
      [['bad', 2, 1, null, 0], 'null'],
    ] as const) {
      await expectSheafRejection(
        adopt(...(args as unknown as [string, number, number, number, number])),
        'INVALID_ARGUMENT',
        fragment,
      );
    }
    expect(await state()).toEqual(before);
  });

  it.skipIf(target === 'pglite')(
    'two sessions adopting one name at once end with one ticket (server targets)',
    async () => {
      const [a, b] = await db().sessions(2);
      const results = await Promise.all(
        [a!, b!].map(async (session) => {
          const [row] = await queryState<{ first_ticket: unknown; created: unknown }>(session, dialect().adopt, [
            'race',
            4,
            2,
            77,
            1,
          ]);
          return { first: String(row?.first_ticket), created: Number(row?.created === true ? 1 : row?.created) };
        }),
      );
      expect(results.map((r) => r.first)).toEqual(['82', '82']);
      expect(results.map((r) => r.created).sort()).toEqual([0, 1]);
      const [first] = await next('race');
      expect(first! >= 82n && first! % 4n === 2n).toBe(true);
    },
  );

  // Adopting is the owner's or an admin's: it runs as its caller, and `grant()` gives it to no application.
  let roles: SuiteRoles | undefined;
  let accounts: SuiteAccounts | undefined;
  afterAll(async () => {
    await roles?.drop();
    await accounts?.drop();
  });

  it.skipIf(target === 'pglite')(
    'an application granted with grant() takes tickets but cannot adopt one (server targets)',
    async () => {
      if (target === 'postgres') {
        roles = await suiteRoles(db());
        await grant(sql(), roles.app);
        await roles.as(roles.app, async (app) => {
          expectInSeries(await next('orders', 1, app), 1025n);
          await expect(app.query(dialect().adopt, ['by-app', 2, 1, 0, 0])).rejects.toMatchObject({ code: '42501' });
        });
      } else {
        accounts = suiteAccounts(db());
        const app = await accounts.create('app');
        await grant(sql(), app.name);
        await app.as(async (session) => {
          expectInSeries(await next('orders', 1, session), 1025n);
          // ER_PROCACCESS_DENIED_ERROR: no EXECUTE on the routine in sheaf's database, the only one since 0013.
          await expect(queryState(session, dialect().adopt, ['by-app', 2, 1, 0, 0])).rejects.toMatchObject({
            errno: 1370,
          });
        });
      }
      expect(await state()).not.toContainEqual(expect.objectContaining({ name: 'by-app' }));
    },
  );
});

describeTargets(
  'MySQL/MariaDB 0009 (adopt_ticket) stopped after any statement',
  (db) => {
    const sql = () => db().executor;
    const adoptFile = mysqlFiles.find((f) => f.name === 'adopt_ticket')!;
    const file = statementsOf(adoptFile.sql);
    const version = adoptFile.version;
    // The next install applies this file again and every later one.
    const fromAdopt = mysqlFiles.filter((later) => later.version >= version).map((later) => later.version);
    const routines = () =>
      sql().query(`select routine_name, routine_type, security_type, routine_definition from information_schema.routines
        where routine_schema = database() order by routine_name`);
    const ticket = async () =>
      BigInt((await sql().query<{ t: string }>("select cast(sheaf_next_ticket('pre') as char) as t"))[0]!.t);
    const before = async () => {
      await uninstall(sql(), { force: true });
      await install(sql(), { upTo: version - 1 });
      await queryState(sql(), "call {state}.sheaf_create_ticket('pre', 2, 1)");
      return ticket();
    };

    it('is applied again by the next install: tickets made before continue, routines as a fresh install', async () => {
      await install(sql());
      const expected = await routines();
      for (let stop = 1; stop < file.length; stop++) {
        const last = await before();
        for (const statement of file.slice(0, stop)) await sql().query(statement);
        expect((await install(sql())).applied, `stopped after ${stop}`).toEqual(fromAdopt);
        expect(await routines(), `stopped after ${stop}`).toEqual(expected);
        const next = await ticket();
        expect(next > last && next % 2n === 1n, `stopped after ${stop}: ${last} then ${next}`).toBe(true);
        const [row] = await queryState<{ first_ticket: string }>(
          sql(),
          "call {state}.sheaf_adopt_ticket('new', 2, 2, 100, 0)",
        );
        expect(row?.first_ticket, `stopped after ${stop}`).toBe('102');
      }
    });
  },
  { only: ['mariadb'] },
);
