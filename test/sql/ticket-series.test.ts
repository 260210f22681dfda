import { grant, install, mysqlAppGrants, type SqlExecutor, uninstall } from '@sheaf/core';
import { afterAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { createTicket } from '../support/generator-sql.js';
import { suiteAccounts } from '../support/mysql-accounts.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';

/** One ticket's `(step, ticket_offset)`, through sheaf's SQL on either dialect. */
async function series(executor: SqlExecutor, name: string | null) {
  const sql =
    executor.dialect.name === 'postgres'
      ? 'select step, "offset" as ticket_offset from sheaf.ticket_series($1)'
      : 'call sheaf_ticket_series(?)';
  const [row] = await executor.query<{ step: unknown; ticket_offset: unknown }>(sql, [name]);
  return [Number(row!.step), Number(row!.ticket_offset)];
}

describeTargets('the series of a ticket (sheaf.ticket_series, sheaf_ticket_series)', (db, target) => {
  let roles: SuiteRoles | undefined;
  afterAll(async () => {
    await roles?.drop();
  });

  it('returns the step and offset the ticket was created with; UNKNOWN_TICKET for another name', async () => {
    await install(db().executor);
    await createTicket(db().executor, 'orders', 3, 2);
    expect(await series(db().executor, 'orders')).toEqual([3, 2]);
    await expectSheafRejection(series(db().executor, 'order'), 'UNKNOWN_TICKET', "unknown ticket 'order'");
    if (target === 'mariadb') await expectSheafRejection(series(db().executor, null), 'UNKNOWN_TICKET', 'NULL');
    else await expectSheafRejection(series(db().executor, null), 'INVALID_ARGUMENT', 'not null');
  });

  it.skipIf(target === 'mariadb')(
    'PostgreSQL: an application role of version 9 may read the series after the upgrade; a stranger may not',
    async () => {
      await uninstall(db().executor, { force: true });
      await install(db().executor, { upTo: 9 });
      await createTicket(db().executor, 'orders', 2, 1);
      roles = await suiteRoles(db());
      const { app, stranger } = roles;
      await db().executor.query(`grant usage on schema sheaf to ${app}`);
      await db().executor.query(`grant execute on function sheaf.next_ticket(text) to ${app}`);
      // install() gives every role that may use schema sheaf the application's functions.
      await install(db().executor);
      expect(await roles.as(app, (session) => series(session, 'orders'))).toEqual([2, 1]);
      const refused = await roles.as(stranger, (session) => series(session, 'orders')).catch((error) => error);
      expect((refused as { code?: unknown }).code).toBe('42501');
      // What `sheaf grant` gives includes it.
      await grant(db().executor, stranger);
      expect(await roles.as(stranger, (session) => series(session, 'orders'))).toEqual([2, 1]);
    },
  );

  it.skipIf(target !== 'mariadb')(
    'MariaDB: an account with the application grants reads a series, not sheaf_tickets',
    async () => {
      const accounts = suiteAccounts(db());
      try {
        const app = await accounts.create('series');
        const database = new URL(db().url!).pathname.slice(1);
        for (const statement of mysqlAppGrants(app.name, database)) await db().executor.query(statement);
        await app.as(async (session) => {
          expect(await series(session, 'orders')).toEqual([3, 2]);
          const refused = await session
            .query(`select * from \`sheaf_${database}\`.sheaf_tickets`)
            .catch((error) => error);
          expect((refused as { errno?: unknown }).errno).toBe(1142);
        });
      } finally {
        await accounts.drop();
      }
    },
  );
});
