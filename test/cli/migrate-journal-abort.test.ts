import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import {
  apply,
  journalDatabase,
  journalFixture,
  journalRow,
  runSheaf,
  type Schema,
  schemaOf,
  withIndexesSorted,
} from './migrate-journal-support.js';

// Each test runs the CLI as a dozen processes or more.
const cliTimeout = 120_000;

describeTargets(
  'sheaf migrate --abort on MySQL/MariaDB',
  () => {
    // The fixture as loaded: what every abort must return to.
    let original: Schema;
    let total = 0;
    let drops = 0;
    let triggers = 0;

    beforeAll(async () => {
      ({ original, total, drops, triggers } = await journalFixture());
    });

    it(
      '--abort at several boundaries (and killed or stopped while aborting) returns schema and data to the original',
      async () => {
        await Promise.all([abortAtBoundaries(), abortTwice()]);
      },
      cliTimeout,
    );

    /** Interrupts an apply at several boundaries, each aborted back to the original. */
    async function abortAtBoundaries(): Promise<void> {
      const url = await journalDatabase();
      const boundaries = [
        'before-step:1',
        `after-step:${drops}:SIGINT`,
        `after-step:${drops + 5}`,
        `after-step:${total - triggers}:SIGINT`,
        `after-step:${total}`,
      ];
      for (const [index, failpoint] of boundaries.entries()) {
        const migration = index + 1;
        const run = await runSheaf(apply(url), failpoint);
        expect([failpoint, run.code ?? run.signal]).toEqual([
          failpoint,
          failpoint.endsWith('SIGINT') ? 130 : 'SIGKILL',
        ]);
        const aborted = await runSheaf(['migrate', '--url', url, '--abort']);
        expect([failpoint, aborted.code]).toEqual([failpoint, 0]);
        expect(aborted.stderr).toContain(`aborting migration #${migration} (--all, `);
        expect(aborted.stdout).toMatch(
          new RegExp(
            `^aborted migration #${migration} in [\\d.]+ s: undid \\d+ steps; verified 12 tables: row counts and checksums as before its first step`,
          ),
        );
        expect(withIndexesSorted(await schemaOf(url))).toEqual(withIndexesSorted(original));
        expect(await journalRow(url)).toMatchObject({ id: migration, state: 'aborted', steps_done: 0 });
      }
      const nothing = await runSheaf(['migrate', '--url', url, '--abort']);
      expect([nothing.code, nothing.stdout]).toEqual([
        0,
        'nothing to abort: no unfinished migration in this database\n',
      ]);
    }

    /** Kills an abort between an inverse and its journal entry, then stops the next one with SIGINT. */
    async function abortTwice(): Promise<void> {
      const url = await journalDatabase();
      await runSheaf(apply(url), `after-step:${total - 4}`);
      const killed = await runSheaf(['migrate', '--url', url, '--abort'], `after-undo:${total - 10}`);
      expect(killed.signal).toBe('SIGKILL');
      expect(await journalRow(url)).toMatchObject({ state: 'aborting', running_step: total - 10 });
      const stopped = await runSheaf(['migrate', '--url', url, '--abort'], `before-undo:${drops}:SIGINT`);
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toContain(`[${total - 10}/${total}] had been undone before the run stopped\n`);
      expect(stopped.stderr).toContain('to finish undoing it: sheaf migrate --url <url> --abort\n');
      const resumeRefused = await runSheaf(apply(url));
      expect(resumeRefused.stderr).toMatch(
        /it is being aborted: nothing was changed; to finish undoing it: sheaf migrate --url <url> --abort \(MIGRATION_UNFINISHED\)\n$/,
      );
      const status = await runSheaf(['migrate', '--url', url, '--status']);
      expect(status.stdout).toContain(`(--all): being aborted: ${drops} of ${total} steps still to undo\n`);
      expect((await runSheaf(['migrate', '--url', url, '--abort'])).code).toBe(0);
      expect(withIndexesSorted(await schemaOf(url))).toEqual(withIndexesSorted(original));
    }
  },
  { only: ['mariadb'] },
);

describeTargets(
  'sheaf migrate --status and --abort on PostgreSQL',
  (db) => {
    it('--status says there is no journal, --abort is a usage error, an interrupted --apply rolls back', async () => {
      const url = db().url as string;
      const status = await runSheaf(['migrate', '--url', url, '--status']);
      expect([status.code, status.stdout]).toEqual([
        0,
        'no journal on PostgreSQL: --apply runs as one transaction, so it either committed or changed nothing\n' +
          'online migrations: none recorded\n',
      ]);
      const json = JSON.parse((await runSheaf(['migrate', '--url', url, '--status', '--json'])).stdout);
      expect(json).toEqual({ dialect: 'postgres', state: 'none', unfinished: false, migration: null, online: [] });
      const abort = await runSheaf(['migrate', '--url', url, '--abort']);
      expect(abort.code).toBe(2);
      expect(abort.stderr).toMatch(/^sheaf migrate: --abort is MySQL\/MariaDB only/);
      // --apply is one transaction here: stopped or killed anywhere, it leaves nothing changed.
      await runSheaf(['install', '--url', url]);
      const executor = db().executor;
      await executor.query('create table parents (id serial primary key)');
      await executor.query('create table children (id serial primary key, parent_id int references parents (id))');
      const applyBoth = ['migrate', '--url', url, '--table', 'parents', '--table', 'children', '--apply'];
      const stopped = await runSheaf(applyBoth, 'after-step:2:SIGINT');
      expect([stopped.code, stopped.stderr]).toEqual([
        130,
        expect.stringMatching(
          /nothing was changed\nsheaf: interrupted before step 3 of \d+: rolled back \(MIGRATION_INTERRUPTED\)\n$/,
        ),
      ]);
      expect((await runSheaf(applyBoth, 'after-step:3')).signal).toBe('SIGKILL');
      const types = await executor.query<{ type: string }>(
        "select data_type as type from information_schema.columns where column_name in ('id', 'parent_id') and table_name in ('parents', 'children') order by 1",
      );
      expect(types.map((row) => row.type)).toEqual(['integer', 'integer', 'integer']);
      const typo = await runSheaf(['migrate', '--url', url, '--all'], 'after-step:x');
      expect([typo.code, typo.stderr]).toEqual([
        2,
        expect.stringContaining('SHEAF_MIGRATE_FAILPOINT must be <before-step|'),
      ]);
      const mixed = await runSheaf(['migrate', '--url', url, '--status', '--all']);
      expect([mixed.code, mixed.stderr]).toEqual([
        2,
        expect.stringContaining('--status takes no other flag but --url and --json (got --all)'),
      ]);
    });
  },
  { only: ['postgres'] },
);
