// `sheaf migrate --no-auto-increment` on MariaDB: keys end as `bigint not null default 0`, filled by
// sheaf's trigger, after the trigger exists; the new step is journaled like the others (a run killed
// right after it resumes, --abort puts AUTO_INCREMENT back); the plan and the Prisma and Drizzle
// notes say which keys keep AUTO_INCREMENT (docs/migrating-existing-tables.md).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeId } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import {
  journalDatabase,
  journalFixture,
  runSheaf,
  type Schema,
  schemaOf,
  withIndexesSorted,
} from './migrate-journal-support.js';
import { sheaf, sheafJson } from './run-sheaf.js';

// Each test runs the CLI a few times on a 12-table fixture.
const cliTimeout = 120_000;

interface Step {
  describe: string;
  sql: string;
  effect: { kind: string }[];
  undo: string;
}

it('--no-auto-increment is refused before connecting on PostgreSQL, and beside --status or --abort', async () => {
  const postgres = await sheaf([
    'migrate',
    '--url',
    'postgres://nobody@127.0.0.1:1/none',
    '--all',
    '--no-auto-increment',
  ]);
  expect([postgres.code, postgres.stderr]).toEqual([
    2,
    'sheaf migrate: --no-auto-increment is MySQL/MariaDB only: PostgreSQL keys have no AUTO_INCREMENT\n' +
      'Run "sheaf migrate --help" for usage.\n',
  ]);
  const status = await sheaf([
    'migrate',
    '--url',
    'mysql://nobody@127.0.0.1:1/none',
    '--status',
    '--no-auto-increment',
  ]);
  expect(status.code).toBe(2);
  expect(status.stderr).toMatch(
    /^sheaf migrate: --status takes no other flag but --url and --json \(got --no-auto-increment\)\n/,
  );
});

describeTargets(
  'sheaf migrate --no-auto-increment on MySQL/MariaDB',
  (db) => {
    const flagged = (url: string) => ['migrate', '--url', url, '--all', '--no-auto-increment', '--apply'];
    let original: Schema;
    let reference: Schema;
    let steps: Step[] = [];
    // The steps that drop AUTO_INCREMENT: the plan's last ones.
    let drops: Step[] = [];

    beforeAll(async () => {
      const fixture = await journalFixture();
      original = fixture.original;
      ({ steps } = await sheafJson<{ steps: Step[] }>([
        'migrate',
        '--url',
        fixture.url,
        '--all',
        '--no-auto-increment',
      ]));
      drops = steps.filter((step) => step.effect[0]?.kind === 'no auto_increment');
      const run = await runSheaf(flagged(fixture.url));
      expect(run.code, run.stderr).toBe(0);
      reference = await schemaOf(fixture.url);
    }, cliTimeout);

    it('drops AUTO_INCREMENT after every trigger exists, keeping each key as it was otherwise', () => {
      const autoIncremented = Object.entries(original.tables).filter(([, ddl]) =>
        /\n {2}`id` [^\n]* AUTO_INCREMENT[ ,]/.test(ddl),
      );
      expect(drops.length).toBeGreaterThan(5);
      expect(drops).toHaveLength(autoIncremented.length);
      expect(steps.slice(-drops.length)).toEqual(drops);
      expect(steps[steps.length - drops.length - 1]?.effect[0]?.kind).toBe('trigger');
      for (const [table] of autoIncremented) {
        expect(reference.tables[table]).toMatch(/\n {2}`id` bigint\(20\) NOT NULL DEFAULT 0[ ,]/);
        expect(reference.tables[table]).not.toContain('AUTO_INCREMENT');
      }
      for (const step of drops)
        expect(step.undo).toMatch(/ bigint not null auto_increment( comment '[^']*')?, auto_increment = \d+$/);
      expect(reference.data).toEqual(original.data);
      expect(reference.foreignKeys).toEqual(original.foreignKeys);
    });

    it(
      'killed right after dropping an AUTO_INCREMENT, a rerun resumes; --abort puts every AUTO_INCREMENT back',
      async () => {
        const url = await journalDatabase();
        const last = steps.length;
        const killed = await runSheaf(flagged(url), `after-step:${last - 1}`);
        expect(killed.signal).toBe('SIGKILL');
        // Resumed as journaled, with or without the flag: the plan is the journal's.
        const rerun = await runSheaf(['migrate', '--url', url, '--all', '--apply']);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(rerun.stderr).toContain(`[${last - 1}/${last}] had committed before the run stopped\n`);
        expect(await schemaOf(url)).toEqual(reference);

        const aborted = await journalDatabase();
        expect((await runSheaf(flagged(aborted), `after-step:${last}`)).signal).toBe('SIGKILL');
        const abort = await runSheaf(['migrate', '--url', aborted, '--abort']);
        expect(abort.code, abort.stderr).toBe(0);
        // The abort finds the last statement committed and undoes it too.
        expect(abort.stderr).toContain(`aborting migration #1 (--all, ${last} of ${last} steps done, `);
        expect(withIndexesSorted(await schemaOf(aborted))).toEqual(withIndexesSorted(original));
      },
      cliTimeout,
    );

    it('says which keys keep AUTO_INCREMENT, in the plan and in the Prisma and Drizzle notes', async () => {
      const url = db().url as string;
      expect((await sheaf(['install', '--url', url, '--shard', '3'])).code).toBe(0);
      await db().executor.query('create table orders (id int not null auto_increment primary key, v int)');
      await db().executor.query('create table countries (id int not null primary key, v int)');
      const out = await mkdtemp(join(tmpdir(), 'sheaf-no-ai-'));
      try {
        const notes = async (format: string, flags: string[]) => {
          const run = await sheaf([
            'migrate',
            '--url',
            url,
            '--all',
            '--format',
            format,
            '--out',
            join(out, format, ...flags),
            ...flags,
          ]);
          expect(run.code, run.stderr).toBe(0);
          return run.stdout;
        };
        const kept = await notes('prisma', []);
        expect(kept).toMatch(
          /model of \S+\.orders: id BigInt @id @default\(autoincrement\(\)\) \(the sheaf trigger sets it/,
        );
        // No AUTO_INCREMENT before either: Prisma cannot read back the trigger's id there.
        expect(kept).toMatch(
          /model of \S+\.countries: id BigInt @id @default\(dbgenerated\(\)\) and an app-side strategy/,
        );
        const dropped = await notes('prisma', ['--no-auto-increment']);
        expect(dropped).toMatch(
          /model of \S+\.orders: id BigInt @id @default\(dbgenerated\(\)\) and an app-side strategy/,
        );
        expect(await notes('drizzle', [])).toMatch(
          /\n\S+\.orders\.id keeps AUTO_INCREMENT: drizzle's \$returningId\(\) fails there after the rows are stored\.\nFor drizzle, plan with --no-auto-increment/,
        );
        expect((await notes('drizzle', ['--no-auto-increment'])).split('wrote drizzle migration')[1]).not.toContain(
          'AUTO_INCREMENT',
        );

        const plan = await sheaf(['migrate', '--url', url, '--all']);
        expect(plan.stdout).toMatch(
          /\nAUTO_INCREMENT kept \(a one-row insert's insertId is the sheaf id; drizzle's \$returningId\(\) fails on these keys: --no-auto-increment drops it\) \(1\):\n {2}\S+\.orders\.id\n/,
        );
        const applied = await sheaf(['migrate', '--url', url, '--all', '--no-auto-increment', '--apply']);
        expect(applied.stdout).toMatch(
          /\nAUTO_INCREMENT dropped \(default 0, filled by sheaf's trigger; [^\n]*\) \(1\):\n {2}\S+\.orders\.id\n/,
        );
        expect(applied.stdout).toMatch(
          /\nmigrated 2 tables in [\d.]+ s; dropped AUTO_INCREMENT from 1 keys; verified 2 tables: /,
        );
        // In strict mode, insert … select leaving the key out passes thanks to the default 0.
        const connection = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
        try {
          await connection.query("set session sql_mode = 'STRICT_ALL_TABLES'");
          await connection.query('insert into orders (v) select 1');
          await connection.query('insert into countries (v) values (2)');
          const [rows] = await connection.query<mysql.RowDataPacket[]>(
            'select id from orders union all select id from countries',
          );
          expect(rows.map((row) => decodeId(String(row.id)).shardId)).toEqual([3, 3]);
        } finally {
          await connection.end();
        }
        const again = await sheaf(['migrate', '--url', url, '--all', '--no-auto-increment']);
        expect(again.stdout, again.stderr).toMatch(/^Nothing to migrate\.\nskipped \(2\):\n/);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    });
  },
  { only: ['mariadb'] },
);
