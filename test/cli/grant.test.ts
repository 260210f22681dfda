import { install } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { sheaf, sheafJson } from './run-sheaf.js';

const cliTimeout = 120_000;

describeTargets(
  'sheaf grant',
  (db) => {
    const role = `sheaf_cli_app_${Math.random().toString(36).slice(2, 8)}`;

    beforeAll(async () => {
      await install(db().executor, { shard: 2 });
      await db().executor.query(`create role ${role} nosuperuser`);
    });
    afterAll(async () => {
      await db().executor.query(`drop owned by ${role}`);
      await db().executor.query(`drop role ${role}`);
    });

    const canTakeIds = () =>
      db().executor.session(async (session) => {
        await session.query(`set role ${role}`);
        try {
          await session.query('select sheaf.next_id()');
          return true;
        } catch {
          return false;
        } finally {
          await session.query('reset role');
        }
      });

    it(
      'prints the statements with --dry-run and changes nothing; then grants them',
      async () => {
        const url = db().url as string;
        const dry = await sheaf(['grant', role, '--url', url, '--dry-run']);
        expect(dry.code).toBe(0);
        expect(dry.stdout).toContain(`grant usage on schema sheaf to "${role}";\n`);
        expect(dry.stdout).toContain(`grant execute on function sheaf.next_id() to "${role}";\n`);
        expect(dry.stdout).not.toMatch(/sheaf\.configure|_open_block\(integer\)|sequence sheaf\.block to .*usage/);
        expect(await canTakeIds()).toBe(false);

        const done = await sheafJson<{ role: string; applied: boolean; statements: string[] }>([
          'grant',
          role,
          '--url',
          url,
        ]);
        expect(done).toMatchObject({ role, applied: true });
        expect(await canTakeIds()).toBe(true);
      },
      cliTimeout,
    );

    it(
      'sheaf doctor fails on a grant broader than an application’s',
      async () => {
        const url = db().url as string;
        const grantsCheck = async () => {
          const run = await sheaf(['doctor', '--url', url, '--json']);
          const report = JSON.parse(run.stdout) as { databases: { checks: { name: string; status: string }[] }[] };
          return { code: run.code, grants: report.databases[0]?.checks.find((check) => check.name === 'grants') };
        };
        expect((await grantsCheck()).grants).toMatchObject({ status: 'ok' });
        await db().executor.query(`grant usage on sequence sheaf.block to ${role}`);
        try {
          const { code, grants } = await grantsCheck();
          expect(code).toBe(1);
          expect(grants).toMatchObject({ status: 'fail', code: 'UNSAFE_GRANTS' });
          expect(JSON.stringify(grants)).toContain(`${role}: usage on sequence sheaf.block`);
        } finally {
          await db().executor.query(`revoke usage on sequence sheaf.block from ${role}`);
        }
      },
      cliTimeout,
    );

    it(
      'refuses a missing role (usage) and an unknown one (failure)',
      async () => {
        const url = db().url as string;
        expect((await sheaf(['grant', '--url', url])).code).toBe(2);
        const unknown = await sheaf(['grant', 'no_such_role_zz', '--url', url]);
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('does not exist (INVALID_ARGUMENT)');
      },
      cliTimeout,
    );
  },
  { only: ['postgres'] },
);
