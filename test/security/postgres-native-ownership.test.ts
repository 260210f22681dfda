import { auditOwnership, grant, install } from '@sheaf/core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { sheaf } from '../cli/run-sheaf.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeNative, expectGeneratorPath, nativePath, plpgsqlPath, takeIds } from '../support/generator-paths.js';
import { removeSheaf, type Squatters, squatters } from './squatters.js';

const cliTimeout = 120_000;

/** The SQLSTATE a statement failed with, or undefined when it ran. */
async function sqlState(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return (error as { code?: string } | undefined)?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
}

// Finding 3: while sheaf_native was trusted, a role with CREATE on the database could create it first
// and own sheaf._native_next_id; a superuser's `install --native` took the extension as it found it,
// and its owner could revoke the generator from other roles or drop it with next_id() and the column
// defaults that call it.
describeNative('the extension sheaf_native squatted', (db) => {
  let squat: Squatters;
  beforeAll(async () => {
    squat = await squatters(db());
  });
  beforeEach(() => removeSheaf(db().executor));
  afterAll(async () => {
    await removeSheaf(db().executor);
    await squat?.drop();
  });

  const app = () => squat.all[0]!.role;
  const owned = async (prefix: string) =>
    (await auditOwnership(db().executor))
      .filter((finding) => finding.object.startsWith(prefix))
      .map((finding) => `${finding.object} ${finding.owner}`);
  const ownershipCheck = async () => {
    const run = await sheaf(['doctor', '--url', db().url as string, '--json']);
    const report = JSON.parse(run.stdout) as { databases: { checks: { name: string; message: string }[] }[] };
    return { code: run.code, check: report.databases[0]?.checks.find((check) => check.name === 'ownership') };
  };

  for (const kind of ['application role', 'database owner'] as const) {
    it(`as the ${kind}: creating the extension is refused, before and after the install`, async () => {
      const { role } = squat.all.find((squatter) => squatter.kind === kind)!;
      expect(await sqlState(squat.as(role, (s) => s.query('create extension sheaf_native')))).toBe('42501');
      await install(db().executor, { shard: 5, native: false });
      await grant(db().executor, app());
      expect(await sqlState(squat.as(role, (s) => s.query('create extension sheaf_native schema sheaf')))).toBe(
        '42501',
      );
      await install(db().executor, { native: true });
      await expectGeneratorPath(db().executor, nativePath);
      expect(await auditOwnership(db().executor)).toEqual([]);
      // Not its owner: it can neither drop the extension nor take the generator from others.
      expect(await sqlState(squat.as(role, (s) => s.query('drop extension sheaf_native cascade')))).toBe('42501');
      // Refused without usage on the schema; with it, a no-op (only a warning) for a role that owns nothing.
      const revoke = `revoke execute on function sheaf._native_next_id() from ${app()}`;
      expect([undefined, '42501']).toContain(await sqlState(squat.as(role, (s) => s.query(revoke))));
      expect(await squat.as(app(), (s) => takeIds(s, 10))).toHaveLength(10);
    });
  }

  it(
    'an extension another role owns is refused by every install and by doctor; the documented recovery works',
    async () => {
      const role = squat.all[1]!.role;
      await install(db().executor, { shard: 5, native: true });
      await grant(db().executor, app());
      await db().executor.query('create table orders (id bigint primary key default sheaf.next_id(), n int)');
      await db().executor.query(`grant insert on orders to ${app()}`);
      // What a squatter of the trusted extension held, and what `install --native` accepted from it.
      await db().executor.query(`update pg_extension set extowner = '${role}'::regrole where extname = 'sheaf_native'`);
      for (const fn of ['sheaf._native_next_id()', 'sheaf._native_next_id(integer)']) {
        await db().executor.query(`alter function ${fn} owner to ${role}`);
      }
      for (const options of [{}, { native: true }, { native: false }]) {
        const before = await db().executor.query('select native from sheaf.settings');
        await expectSheafRejection(
          install(db().executor, options),
          'UNSAFE_OWNERSHIP',
          `extension sheaf_native is owned by role ${role}, not by postgres`,
          'drop extension sheaf_native',
        );
        expect(await db().executor.query('select native from sheaf.settings')).toEqual(before);
      }
      expect(await owned('extension')).toEqual([`extension sheaf_native ${role}`]);
      expect(await owned('function sheaf._native')).toHaveLength(2);
      const failed = await ownershipCheck();
      expect(failed.code).toBe(1);
      expect(failed.check).toMatchObject({ status: 'fail', code: 'UNSAFE_OWNERSHIP' });
      expect(failed.check?.message).toContain(`extension sheaf_native owned by ${role}`);

      // The recovery of docs/security.md (Ownership), as a superuser.
      await db().executor.session(async (session) => {
        await session.query('begin');
        await session.query('set local role postgres');
        await session.query('update sheaf.settings set native = false');
        await session.query('select sheaf._bake()');
        await session.query('reset role');
        await session.query('drop extension sheaf_native');
        await session.query('commit');
      });
      await expectGeneratorPath(db().executor, plpgsqlPath);
      await install(db().executor, { native: true });
      await expectGeneratorPath(db().executor, nativePath);
      expect(await auditOwnership(db().executor)).toEqual([]);
      await squat.as(app(), (s) => s.query('insert into orders (n) select 1 from generate_series(1, 10)'));
      expect(await squat.as(app(), (s) => takeIds(s, 10))).toHaveLength(10);
      expect((await ownershipCheck()).check).toMatchObject({ status: 'ok' });
    },
    cliTimeout,
  );
});
