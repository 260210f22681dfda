import { install, SegmentGenerator, sqlVersion, uninstall } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';
import { type SuiteRoles, suiteRoles } from '../support/pg-roles.js';
import { queryState } from '../support/state-sql.js';

/** The SQLSTATE (PostgreSQL) or errno (MySQL) a refused statement failed with; undefined when it succeeded. */
async function refusal(promise: Promise<unknown>): Promise<string | number | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { code?: string; errno?: number; cause?: { code?: string; errno?: number } },
  );
  if (!error) return undefined;
  return error.cause?.errno ?? error.errno ?? error.cause?.code ?? error.code ?? 'error';
}

// Segments of a residue class (SQL version 11 on PostgreSQL, 8 on MySQL/MariaDB) under least
// privilege: the application reads a class and allocates through the new routines, and cannot
// create or change a class; an application granted before the upgrade gets them with it.
describeTargets(
  'segment classes on PostgreSQL under least privilege',
  (db) => {
    let roles: SuiteRoles;

    beforeAll(async () => {
      roles = await suiteRoles(db());
    });
    afterAll(async () => {
      await roles?.drop();
    });

    it('a role granted before version 11 reads and allocates classes after the upgrade, and creates none', async () => {
      await roles.as(roles.owner, async (owner) => {
        // What an application role of version 10 has for segments (grant() grants this package's version only).
        await install(owner, { shard: 3, upTo: 10 });
        await owner.query(`grant usage on schema sheaf to ${roles.app}`);
        await owner.query(`grant execute on function sheaf.alloc_segment(text, integer) to ${roles.app}`);
        await install(owner);
        await owner.query("select sheaf.create_segment_class('spread', 2, 1, 10)");
      });
      await roles.as(roles.app, async (app) => {
        // Through the generator: the same database twice, whose one class fits one position only.
        const ids = new SegmentGenerator([app, app], { bizTag: 'spread', dynamicStep: false });
        await expect(ids.start()).rejects.toThrow(/database 0 of 2 records residue class 1 mod 2/);
        await ids.close();
        const [found] = await app.query<{ delta: number; remainder: number }>(
          "select delta, remainder from sheaf.segment_class('spread')",
        );
        expect(found).toEqual({ delta: 2, remainder: 1 });
        const [range] = await app.query<{ first_id: string; last_id: string }>(
          "select first_id::text, last_id::text from sheaf.alloc_segment_class('spread', null, 2, 1)",
        );
        expect([range?.first_id, range?.last_id]).toEqual(['1', '19']);
        for (const statement of [
          "select sheaf.create_segment_class('x', 2, 0)",
          "update sheaf.segments set remainder = 0 where biz_tag = 'spread'",
          'select * from sheaf.segments',
        ]) {
          expect(await refusal(app.query(statement)), statement).toBe('42501');
        }
      });
      await roles.as(roles.stranger, async (stranger) => {
        expect(await refusal(stranger.query("select * from sheaf.segment_class('spread')"))).toBe('42501');
        expect(await refusal(stranger.query("select * from sheaf.alloc_segment_class('spread', 1, 2, 1)"))).toBe(
          '42501',
        );
      });
      await roles.as(roles.owner, (owner) => uninstall(owner, { force: true }));
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'segment classes on MySQL/MariaDB under least privilege',
  (db) => {
    let accounts: SuiteAccounts;
    let app: SuiteAccount;

    beforeAll(async () => {
      accounts = suiteAccounts(db());
      app = await accounts.create('app');
    });
    afterAll(async () => {
      await accounts?.drop();
    });

    it('an account granted before version 8 keeps sheaf_alloc_segment and gets the class routines, and creates none', async () => {
      const sql = db().executor;
      // What mysqlAppGrants gave an account for segments before version 8 (grant() grants this
      // package's version only); the upgrade replaces sheaf_alloc_segment, and install() restores it.
      await install(sql, { shard: 3, upTo: 7 });
      await sql.query(`grant execute on procedure sheaf_alloc_segment to ${app.sql}`);
      await install(sql);
      expect(sqlVersion('mysql')).toBeGreaterThanOrEqual(8);
      await queryState(sql, "call {state}.sheaf_create_segment_class('spread', 2, 1, 10, 0, null)");
      await queryState(sql, "call {state}.sheaf_create_segment('plain', 10, 0, null)");
      await app.as(async (session) => {
        const [found] = await session.query<{ delta: number; remainder: number }>("call sheaf_segment_class('spread')");
        expect([Number(found?.delta), Number(found?.remainder)]).toEqual([2, 1]);
        const [range] = await session.query<{ first_id: unknown; last_id: unknown }>(
          "call sheaf_alloc_segment_class('spread', null, 2, 1)",
        );
        expect([String(range?.first_id), String(range?.last_id)]).toEqual(['1', '19']);
        const [plain] = await session.query<{ first_id: unknown }>("call sheaf_alloc_segment('plain', null)");
        expect(String(plain?.first_id)).toBe('1');
        for (const [statement, errno] of [
          ["call {state}.sheaf_create_segment_class('x', 2, 0, 10, 0, null)", 1370],
          ["update {state}.sheaf_segments set remainder = 0 where biz_tag = 'spread'", 1142],
        ] as const) {
          expect(await refusal(queryState(session, statement)), statement).toBe(errno);
        }
      });
      await uninstall(sql, { force: true });
    });
  },
  { only: ['mariadb'] },
);
