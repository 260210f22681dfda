import { auditOwnership, grant, install } from '@sheaf/core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { sheaf } from '../cli/run-sheaf.js';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { removeSheaf, type Squatters, squatters } from './squatters.js';

const cliTimeout = 120_000;

// Finding 4: a role with CREATE on the database creates schema sheaf before sheaf's owner installs.
// Owning the schema, it could later replace sheaf.settings or restart sheaf.counter under the
// installed generator (another database's shard, an id issued twice). Install and doctor refuse it.
describeTargets(
  'schema sheaf squatted before install',
  (db, target) => {
    let squat: Squatters;
    beforeAll(async () => {
      squat = await squatters(db());
    });
    beforeEach(() => removeSheaf(db().executor));
    afterAll(async () => {
      await removeSheaf(db().executor);
      await squat?.drop();
    });

    const relations = async () => {
      const [row] = await db().executor.query<{ n: unknown }>(
        "select count(*)::int as n from pg_class where relnamespace = 'sheaf'::regnamespace",
      );
      return Number(row?.n);
    };

    for (const kind of ['application role', 'database owner'] as const) {
      it(`as the ${kind}: a superuser install into its schema is refused and changes nothing; drop schema recovers`, async () => {
        const { role } = squat.all.find((squatter) => squatter.kind === kind)!;
        await squat.as(role, (session) => session.query('create schema sheaf'));
        const refusal = await expectSheafRejection(
          install(db().executor, { shard: 5 }),
          'UNSAFE_OWNERSHIP',
          `schema sheaf is owned by role ${role}, not by postgres`,
          'drop schema sheaf',
          'alter schema sheaf owner to postgres',
        );
        expect(refusal.details).toMatchObject({ findings: [{ object: 'schema sheaf', owner: role }] });
        expect(await relations()).toBe(0);
        // The documented recovery (docs/security.md, Ownership): the schema held nothing of sheaf.
        await db().executor.query('drop schema sheaf');
        await install(db().executor, { shard: 5 });
        await grant(db().executor, squat.all[0]!.role);
        expect(await auditOwnership(db().executor)).toEqual([]);
        for (const statement of ['drop table sheaf.settings', 'create table sheaf.settings2 (x int)']) {
          const error = await squat.as(role, (session) => session.query(statement)).catch((caught: unknown) => caught);
          expect((error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code).toBe(
            '42501',
          );
        }
      });

      it(`as the ${kind}: its objects are refused even once the schema is given back`, async () => {
        const { role } = squat.all.find((squatter) => squatter.kind === kind)!;
        await squat.as(role, async (session) => {
          await session.query('create schema sheaf');
          await session.query('create table sheaf.settings (shard_id integer)');
          await session.query('create sequence sheaf.counter');
        });
        await db().executor.query('alter schema sheaf owner to current_user');
        await expectSheafRejection(
          install(db().executor),
          'UNSAFE_OWNERSHIP',
          `sequence sheaf.counter is owned by role ${role}`,
          'and 1 more',
          'alter sequence sheaf.counter owner to postgres',
        );
        expect(await relations()).toBe(2);
      });
    }

    it('an install whose schema was handed to another role afterwards: install and auditOwnership refuse it', async () => {
      const { role } = squat.all[0]!;
      await install(db().executor, { shard: 5 });
      // What the squatted install of earlier versions left: sheaf's objects in a schema the app owns.
      await db().executor.query(`alter schema sheaf owner to ${role}`);
      const findings = await auditOwnership(db().executor);
      expect(findings).toContainEqual({ object: 'table sheaf.settings', owner: 'postgres', expected: role });
      expect(findings.length).toBeGreaterThan(10);
      await expectSheafRejection(install(db().executor), 'UNSAFE_OWNERSHIP', `schema sheaf is owned by role ${role}`);
      await db().executor.query('alter schema sheaf owner to current_user');
      expect(await auditOwnership(db().executor)).toEqual([]);
      await install(db().executor);
    });

    it.skipIf(target === 'pglite')(
      'sheaf doctor fails on a schema owned by another role than its objects, and passes after the recovery',
      async () => {
        const { role } = squat.all[1]!;
        await install(db().executor, { shard: 5 });
        const url = db().url as string;
        const ownership = async () => {
          const run = await sheaf(['doctor', '--url', url, '--json']);
          const report = JSON.parse(run.stdout) as { databases: { checks: { name: string }[] }[] };
          return { code: run.code, check: report.databases[0]?.checks.find((check) => check.name === 'ownership') };
        };
        expect((await ownership()).check).toMatchObject({ status: 'ok' });
        await db().executor.query(`alter schema sheaf owner to ${role}`);
        const { code, check } = await ownership();
        expect(code).toBe(1);
        expect(check).toMatchObject({ status: 'fail', code: 'UNSAFE_OWNERSHIP' });
        expect(JSON.stringify(check)).toContain('sequence sheaf.counter owned by postgres');
        await db().executor.query('alter schema sheaf owner to current_user');
        expect((await ownership()).check).toMatchObject({ status: 'ok' });
      },
      cliTimeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);
