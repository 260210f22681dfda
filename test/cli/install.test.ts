import { sqlVersion } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { dialectOf, keyedTableSql, newPgliteUrl, nextIdSql, onDatabase, urlFor } from './cli-targets.js';
import { sheaf, sheafJson } from './run-sheaf.js';

// Several CLI processes per test, and PGlite boots in each one (1 to 2 s on a busy machine).
const cliTimeout = 120_000;

describeTargets('sheaf install, status and uninstall', (db, target) => {
  const dialect = dialectOf(target);
  // PostgreSQL's install line also says how next_id() runs.
  const upToDateLine = (shard: number) =>
    new RegExp(
      `\\(already up to date\\): shard ${shard}, layout sheaf${dialect === 'postgres' ? ', next_id\\(\\) in [^\\n]+' : ''}\\n$`,
    );

  it(
    'installs, reports status, stays idempotent and uninstalls',
    async () => {
      // On PGlite the directory does not exist yet: the CLI creates the database, as a user's first run does.
      const url = target === 'pglite' ? newPgliteUrl() : await urlFor(target, db());
      const installed = await sheafJson<{ version: number; applied: number[] }>([
        'install',
        '--url',
        url,
        '--shard',
        '7',
      ]);
      expect(installed.version).toBe(sqlVersion(dialect));
      expect(installed.applied).toHaveLength(sqlVersion(dialect));

      const status = await sheafJson(['status', '--url', url]);
      expect(status).toMatchObject({ installed: true, version: sqlVersion(dialect), upToDate: true, shard: 7 });
      expect(status).toMatchObject({ idsIssued: false, runsOut: '2093-09-06T15:47:35.551Z' });
      expect(status.layout).toEqual({
        name: 'sheaf',
        epoch: 1704067200000,
        timeBits: 41,
        shardBits: 12,
        sequenceBits: 10,
      });

      // DATABASE_URL stands in for --url; mariadb:// for mysql://.
      const fromEnv = await sheaf(['status', '--json'], { DATABASE_URL: url.replace(/^mysql:/, 'mariadb:') });
      expect(JSON.parse(fromEnv.stdout)).toMatchObject({ installed: true, shard: 7 });

      await onDatabase(url, db(), (sql) => sql.query(nextIdSql[dialect]));
      expect(await sheafJson(['status', '--url', url])).toMatchObject({ idsIssued: true, shard: 7 });
      const text = await sheaf(['status', '--url', url]);
      expect(text.stdout).toMatch(/^sql version +\d+ \(up to date\)$/m);
      expect(text.stdout).toMatch(/^ids issued +yes/m);

      const again = await sheaf(['install', '--url', url, '--shard', '8']);
      expect(again.stdout).toMatch(upToDateLine(8));
      expect(await sheafJson(['status', '--url', url])).toMatchObject({ shard: 8 });

      // Without --shard an installed database keeps its shard: a start-up install never moves it to 0.
      const kept = await sheaf(['install', '--url', url]);
      expect(kept.stdout).toMatch(upToDateLine(8));
      expect(await sheafJson(['install', '--url', url])).toMatchObject({ shard: 8, layout: 'sheaf' });
      expect(await sheafJson(['status', '--url', url])).toMatchObject({ shard: 8 });

      expect((await sheaf(['uninstall', '--url', url])).stdout).toMatch(/^removed sheaf from /);
      const removed = await sheaf(['status', '--url', url, '--json']);
      expect(removed.code).toBe(1);
      expect(JSON.parse(removed.stdout)).toEqual({ dialect, installed: false, packageVersion: sqlVersion(dialect) });
      expect(await sheafJson(['uninstall', '--url', url])).toEqual({ uninstalled: false, dialect });
    },
    cliTimeout,
  );

  it(
    'exits 1 with IN_USE while a table uses sheaf, and removes it with --force',
    async () => {
      const url = await urlFor(target, db());
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      await onDatabase(url, db(), async (sql) => {
        for (const statement of keyedTableSql[dialect]) await sql.query(statement);
      });
      const refused = await sheaf(['uninstall', '--url', url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^sheaf: cannot uninstall: .*cli_orders.* \(IN_USE\)\n$/);
      expect((await sheaf(['uninstall', '--url', url, '--force'])).code).toBe(0);
      const status = await sheaf(['status', '--url', url, '--json']);
      expect(status.code).toBe(1);
      expect(JSON.parse(status.stdout)).toMatchObject({ installed: false });
      await onDatabase(url, db(), (sql) => sql.query('drop table cli_orders'));
    },
    cliTimeout,
  );

  // PGlite's refusal is install()'s (test/sql/native-path.test.ts): its CLI processes boot slowly.
  it.skipIf(target === 'pglite')(
    'switches next_id() between C and PL/pgSQL with --native and --no-native, and status says which runs',
    async () => {
      const url = await urlFor(target, db());
      expect((await sheaf(['install', '--url', url, '--no-native'])).code).toBe(0);
      const before = await sheafJson<{ native: boolean; nativeAvailable: boolean }>(['status', '--url', url]);
      expect(before.native).toBe(false);
      const both = await sheaf(['install', '--url', url, '--native', '--no-native']);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/--native and --no-native cannot be combined/);

      const native = await sheaf(['install', '--url', url, '--native']);
      if (!before.nativeAvailable) {
        // PGlite, MariaDB, or a server without the extension: refused, and nothing changed.
        expect(native.code).toBe(1);
        expect(native.stderr).toMatch(/\(NATIVE_UNAVAILABLE\)/);
        expect(await sheafJson(['status', '--url', url])).toMatchObject({ native: false });
        return;
      }
      expect(native.code).toBe(0);
      expect(native.stdout).toMatch(/next_id\(\) in C \(sheaf_native\)\n$/);
      expect(await sheafJson(['status', '--url', url])).toMatchObject({ native: true });
      expect((await sheaf(['status', '--url', url])).stdout).toMatch(/^next_id\(\) +C \(extension sheaf_native\)$/m);
      // Left out, the choice stays.
      expect((await sheaf(['install', '--url', url])).stdout).toMatch(/next_id\(\) in C/);
      const back = await sheaf(['install', '--url', url, '--no-native']);
      expect(back.stdout).toMatch(/next_id\(\) in PL\/pgSQL\n$/);
      expect((await sheaf(['status', '--url', url])).stdout).toMatch(
        /^next_id\(\) +PL\/pgSQL \(sheaf_native is available: sheaf install --native\)$/m,
      );
    },
    cliTimeout,
  );

  it(
    'exits 1 naming the driver error when the database cannot be reached',
    async () => {
      const url = target === 'pglite' ? 'pglite:/nonexistent/sheaf' : 'postgres://nobody@127.0.0.1:1/none';
      const run = await sheaf(['status', '--url', url]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(target === 'pglite' ? /no PGlite database at \/nonexistent\/sheaf/ : /ECONNREFUSED/);
    },
    cliTimeout,
  );
});
