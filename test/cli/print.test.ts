import { sqlVersion } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { dialectOf, onDatabase, urlFor } from './cli-targets.js';
import { sheaf, sheafJson } from './run-sheaf.js';

// Several CLI processes per test, and PGlite boots in each one (1 to 2 s on a busy machine).
const cliTimeout = 120_000;

describeTargets('sheaf install --print and uninstall --print', (db, target) => {
  const dialect = dialectOf(target);

  it(
    '--print writes SQL that installs the same thing when a driver runs it',
    async () => {
      const url = await urlFor(target, db());
      const printed = await sheaf(['install', '--url', url, '--shard', '3', '--layout', 'instagram', '--print']);
      expect(printed.code).toBe(0);
      const statements = printed.stdout.split(/^-- sheaf:break$/m);
      await onDatabase(url, db(), async (sql) => {
        for (const statement of statements) await sql.query(statement);
      });
      const status = await sheafJson(['status', '--url', url]);
      expect(status).toMatchObject({ installed: true, version: sqlVersion(dialect), shard: 3, idsIssued: false });
      expect(status.layout).toMatchObject({ name: 'instagram', shardBits: 13 });
      // install() recognises every printed file by its checksum: nothing left to apply.
      expect(await sheafJson(['install', '--url', url, '--shard', '3', '--layout', 'instagram'])).toMatchObject({
        applied: [],
      });

      const removal = await sheaf(['uninstall', '--url', url, '--print']);
      await onDatabase(url, db(), async (sql) => {
        for (const statement of removal.stdout.split(/^-- sheaf:break$/m)) await sql.query(statement);
      });
      const removed = await sheaf(['status', '--url', url, '--json']);
      expect(removed.code).toBe(1);
      expect(JSON.parse(removed.stdout)).toMatchObject({ installed: false });
    },
    cliTimeout,
  );
});
