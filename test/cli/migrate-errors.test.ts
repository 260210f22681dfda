// One error style: a failure, whether sheaf refused (a SheafError) or the database or driver did,
// reads `sheaf: <message> (<code>)`; only usage errors name the command, with its --help (docs/cli.md).
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { sheaf } from './run-sheaf.js';

describeTargets(
  'sheaf migrate error lines',
  (db) => {
    it('prints database and driver failures like refusals, and usage errors with the command', async () => {
      const url = db().url as string;
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      await db().executor.query('create table guarded (id serial primary key, owner_id int)');
      await db().executor.query('alter table guarded enable row level security');
      await db().executor.query('create policy positive on guarded using (id > 0)');

      const refused = await sheaf(['migrate', '--url', url, '--table', 'nope']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^sheaf: no table "nope" .* \(UNKNOWN_TABLE\)\n$/);
      // PostgreSQL refuses the ALTER itself: the transaction rolls back.
      const failed = await sheaf(['migrate', '--url', url, '--table', 'guarded', '--apply']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/\nsheaf: cannot alter type of a column used in a policy definition \(0A000\)\n$/);
      for (const down of ['postgres://nobody@127.0.0.1:1/none', 'mysql://nobody@127.0.0.1:1/none']) {
        const unreachable = await sheaf(['migrate', '--url', down, '--all']);
        expect(unreachable.code).toBe(1);
        expect(unreachable.stderr).toBe('sheaf: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)\n');
      }
      const usage = await sheaf(['migrate', '--url', url, '--all', '--table', 'guarded']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toBe(
        'sheaf migrate: --table and --all cannot be combined\nRun "sheaf migrate --help" for usage.\n',
      );
    });
  },
  { only: ['postgres'] },
);
