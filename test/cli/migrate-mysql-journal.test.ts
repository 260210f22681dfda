import { beforeAll, expect, it } from 'vitest';
import { settleUnfinished } from '../../docs/guides/examples/migrate/settle-unfinished.js';
import { applyMigration, inspect, migrationStatus, plan, resumeMigration } from '../../packages/migrate/src/index.js';
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
import { withMysql } from './migrate-mysql-support.js';

// Each test runs the CLI as dozens of processes, one step boundary each.
const cliTimeout = 120_000;

describeTargets(
  'sheaf migrate --apply on MySQL/MariaDB: journal, resume, status',
  () => {
    // The fixture as loaded, and as an uninterrupted --apply leaves it (on a twin database).
    let original: Schema;
    let reference: Schema;
    let total = 0;
    // Steps 1…drops drop foreign keys; the last `triggers` steps create sheaf's triggers.
    let drops = 0;
    let triggers = 0;

    beforeAll(async () => {
      const { url, ...fixture } = await journalFixture();
      ({ original, total, drops, triggers } = fixture);
      const run = await runSheaf(apply(url));
      expect(run.stderr).toMatch(/fingerprinting 12 tables after the migration\n$/);
      expect(run.code).toBe(0);
      reference = await schemaOf(url);
    }, cliTimeout);

    it('plans 40 steps around 26 foreign keys, and the uninterrupted reference changes no row', () => {
      expect([total, drops, triggers]).toEqual([40, 11, 11]);
      expect(original.foreignKeys).toHaveLength(26);
      expect(reference.foreignKeys).toEqual(original.foreignKeys);
      expect(reference.data).toEqual(original.data);
      expect(reference.tables.users).toContain('`tenant_id` bigint(20) NOT NULL');
    });

    it(
      'the bug is gone: killed after dropping the foreign keys, a rerun resumes and every key is back',
      async () => {
        const url = await journalDatabase();
        const none = await runSheaf(['migrate', '--url', url, '--status']);
        expect(none.stdout).toMatch(/^no migration journaled in database sheaf_j_\w+\n$/);
        // The plan as a second deploy would have made it at the same moment.
        const stale = await withMysql(url, async (sql) => plan(await inspect(sql, { all: true })));
        const killed = await runSheaf(apply(url), `after-step:${drops}`);
        expect(killed.signal).toBe('SIGKILL');
        expect((await schemaOf(url)).foreignKeys).toEqual([]);
        const rerun = await runSheaf(apply(url));
        expect(rerun.code).toBe(0);
        expect(rerun.stdout).toMatch(/^Resuming migration #1 \(--all\): 10 of 40 steps done, started 20\d\d-/);
        expect(rerun.stderr).toContain('[11/40] had committed before the run stopped\n');
        expect(rerun.stdout).toMatch(/finished migration #1 in [\d.]+ s \(30 steps this run\); verified 12 tables/);
        const schema = await schemaOf(url);
        expect(schema.foreignKeys).toHaveLength(26);
        expect(schema).toEqual(reference);
        // Run again: finished, nothing left to do, and no journal in the way.
        const again = await runSheaf(apply(url));
        expect([again.code, again.stderr]).toEqual([0, '']);
        expect(again.stdout).toMatch(/^Nothing to migrate\.\n/);
        // That stale plan, applied now, would drop the keys again: refused, nothing changed.
        const late = await withMysql(url, (sql) => applyMigration(sql, stale, { tables: [] }).catch((error) => error));
        expect(late).toMatchObject({
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(
            /^sheaf: the schema already shows what step 12 of this plan does \(\w+: id .* → bigint/,
          ),
        });
        expect(await schemaOf(url)).toEqual(reference);
      },
      cliTimeout,
    );

    it(
      'a step that fails (an orphan row written meanwhile) stops the run with its error; once fixed, the rerun goes on',
      async () => {
        const url = await journalDatabase();
        await runSheaf(apply(url), `after-step:${drops}:SIGINT`);
        // With the foreign keys dropped, nothing stops a comment on a task that does not exist.
        const orphan = "insert into comments (id, task_id, author_id, body) values (13, 99999, 1, 'orphan')";
        await withMysql(url, (sql) => sql.query(orphan));
        const failed = await runSheaf(apply(url));
        expect(failed.code).toBe(1);
        expect(failed.stderr).toMatch(/\[\d+\/40\] comments: .*\nsheaf: .*a foreign key constraint fails.*\n$/s);
        const status = await runSheaf(['migrate', '--url', url, '--status', '--json']);
        const { migration } = JSON.parse(status.stdout);
        expect(migration.note).toMatch(/^step \d+ failed: .*foreign key constraint fails/);
        expect(migration.runningStep).toBe(migration.stepsDone + 1);
        await withMysql(url, (sql) => sql.query('delete from comments where id = 13'));
        const rerun = await runSheaf(apply(url));
        expect(rerun.code).toBe(0);
        expect(await schemaOf(url)).toEqual(reference);
      },
      cliTimeout,
    );

    it(
      'resumes after kill -9 and after SIGINT at every step boundary, ending as an uninterrupted run',
      async () => {
        // Two databases at once: each run is mostly a process starting.
        const [killed, interrupted] = await Promise.all([killAtEveryBoundary(), interruptAtEveryBoundary()]);
        expect(killed).toEqual(reference);
        expect(interrupted).toEqual(reference);
      },
      cliTimeout,
    );

    /** Kills a run between each statement and its journal entry, the next run resuming; returns the end. */
    async function killAtEveryBoundary(): Promise<Schema> {
      const url = await journalDatabase();
      const first = await runSheaf(apply(url), 'before-step:1');
      expect(first.signal).toBe('SIGKILL');
      expect(await journalRow(url)).toMatchObject({ state: 'running', steps_done: 0, running_step: null });
      for (let step = 1; step <= total; step++) {
        const run = await runSheaf(apply(url), `after-step:${step}`);
        expect([step, run.signal]).toEqual([step, 'SIGKILL']);
        if (step > 1) expect(run.stderr).toContain(`[${step - 1}/${total}] had committed before the run stopped\n`);
        // The statement committed; the journal does not say so yet.
        expect(await journalRow(url)).toMatchObject({ steps_done: step - 1, running_step: step });
      }
      const last = await runSheaf(apply(url));
      expect(last.code).toBe(0);
      expect(last.stderr).toContain(`[${total}/${total}] had committed before the run stopped\n`);
      expect(await journalRow(url)).toMatchObject({ state: 'done', steps_done: total, running_step: null });
      return schemaOf(url);
    }

    /** Raises SIGINT at each boundary: the run stops there (exit 130) and the next one goes on; returns the end. */
    async function interruptAtEveryBoundary(): Promise<Schema> {
      const url = await journalDatabase();
      const first = await runSheaf(apply(url), 'before-step:1:SIGINT');
      expect(first.code).toBe(130);
      expect(first.stderr).toMatch(
        /sheaf migrate: interrupted: stopping after the statement that is running \(Ctrl-C again exits at once\)\nto resume: sheaf migrate --url <url> --all --apply\nto undo the finished steps: sheaf migrate --url <url> --abort\nsheaf: interrupted before the first step of migration #1 \(MIGRATION_INTERRUPTED\)\n$/,
      );
      for (let step = 1; step <= total; step++) {
        const run = await runSheaf(apply(url), `after-step:${step}:SIGINT`);
        expect([step, run.code]).toEqual([step, 130]);
        const where =
          step === total
            ? 'after the last step of migration #1, before verifying'
            : `after step ${step} of ${total} of migration #1`;
        expect(run.stderr).toContain(`sheaf: interrupted ${where} (MIGRATION_INTERRUPTED)\n`);
        expect(await journalRow(url)).toMatchObject({ state: 'running', steps_done: step, running_step: null });
      }
      const last = await runSheaf(apply(url));
      expect(last.code).toBe(0);
      expect(last.stdout).toMatch(/finished migration #1 in [\d.]+ s \(0 steps this run\)/);
      return schemaOf(url);
    }

    it(
      'a Ctrl-C from outside during a statement lets it finish and records it; resumeMigration (the docs example) completes it',
      async () => {
        const url = await journalDatabase();
        const run = await runSheaf(apply(url), undefined, (child) => {
          child.stderr?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes(`[${drops + 2}/`)) child.kill('SIGINT');
          });
        });
        expect(run.code).toBe(130);
        const row = await journalRow(url);
        expect(row.running_step).toBeNull();
        expect(row.steps_done).toBeGreaterThanOrEqual(drops + 2);
        expect(run.stderr).toContain(`sheaf: interrupted after step ${row.steps_done} of ${total} of migration #1`);
        const lines: string[] = [];
        const settled = await withMysql(url, (sql) => settleUnfinished(sql, 'resume', (text) => lines.push(text)));
        expect(settled).toBe('resumed');
        expect(lines[0]).toBe(`migration #1: ${row.steps_done} of ${total} steps done (running)\n`);
        expect(lines.at(-1)).toBe('fingerprinting 12 tables after the migration\n');
        expect(await schemaOf(url)).toEqual(reference);
        expect(await withMysql(url, (sql) => settleUnfinished(sql, 'resume', () => undefined))).toBe(
          'nothing unfinished',
        );
      },
      cliTimeout,
    );

    it(
      'while one is unfinished: --status says where it stands, another selection or a plan is refused and changes nothing',
      async () => {
        const url = await journalDatabase();
        await runSheaf(apply(url), `after-step:${drops + 3}`);
        const before = await schemaOf(url);
        const row = await journalRow(url);

        const status = await runSheaf(['migrate', '--url', url, '--status']);
        expect(status.code).toBe(0);
        expect(status.stdout).toMatch(
          new RegExp(
            `^migration #1 of database sheaf_j_\\w+ \\(--all\\): in progress: step 13 of 40 done\\n` +
              '  last completed step: \\[13/40\\] \\w+: .* → bigint.*\\n' +
              '  next step: \\[14/40\\] .*\\n' +
              '  step 14 was running when the run stopped: the next run checks the catalog for whether it committed\\n' +
              '  started 20\\d\\d-[\\d-]+T[\\d:.]+Z, last change 20\\d\\d-[\\d-]+T[\\d:.]+Z\\n' +
              'to resume: sheaf migrate --url <url> --all --apply\\n' +
              'to undo the finished steps: sheaf migrate --url <url> --abort\\n$',
          ),
        );
        const json = JSON.parse((await runSheaf(['migrate', '--url', url, '--status', '--json'])).stdout);
        expect(json).toMatchObject({
          dialect: 'mysql',
          state: 'running',
          unfinished: true,
          migration: { id: 1, selection: { all: true }, steps: 40, stepsDone: 13, runningStep: 14, finishedAt: null },
          online: [],
        });
        const api = await withMysql(url, migrationStatus);
        expect([api.unfinished, api.latest?.stepsDone, api.latest?.steps[13]?.sql]).toEqual([
          true,
          13,
          expect.stringMatching(/^alter table /),
        ]);

        for (const args of [['--table', 'users', '--apply'], ['--all'], ['--all', '--out', '/nonexistent']]) {
          const refused = await runSheaf(['migrate', '--url', url, ...args]);
          expect([args, refused.code]).toEqual([args, 1]);
          expect(refused.stderr).toMatch(
            /^sheaf: migration #1 \(--all\) is unfinished in this database, 13 of 40 steps done, started .*Z; .*: nothing was changed; to resume: sheaf migrate --url <url> --all --apply; to undo the finished steps: sheaf migrate --url <url> --abort \(MIGRATION_UNFINISHED\)\n$/,
          );
        }
        const different = await runSheaf(['migrate', '--url', url, '--table', 'users', '--apply']);
        expect(different.stderr).toContain('you asked for --table users: nothing was changed');
        expect(await schemaOf(url)).toEqual(before);
        expect(await journalRow(url)).toEqual(row);
        // Another session holding the migration lock: a run waits for it, then gives up.
        const held = await withMysql(url, async (other) => {
          await other.query("select get_lock(concat('sheaf_migrate:', database()), 0)");
          return withMysql(url, (sql) => resumeMigration(sql, { lockWaitSeconds: 0 }).catch((error: unknown) => error));
        });
        expect(held).toMatchObject({
          code: 'MIGRATION_UNFINISHED',
          message: expect.stringMatching(
            /^sheaf: another session holds the migration lock of database sheaf_j_\w+ \(waited 0 s\)/,
          ),
        });
        // From code, as the docs example does before a deploy plans anything.
        expect(await withMysql(url, (sql) => settleUnfinished(sql, 'abort', () => undefined))).toBe('aborted');
        expect(withIndexesSorted(await schemaOf(url))).toEqual(withIndexesSorted(original));
      },
      cliTimeout,
    );
  },
  { only: ['mariadb'] },
);
