import { install } from '@sheaf/core';
import { afterEach, expect, it } from 'vitest';
import { describeTargets, type Opened, openDatabase } from '../support/database.js';
import { sheaf } from './run-sheaf.js';

const cliTimeout = 120_000;

describeTargets(
  'sheaf install --registry',
  (db, target) => {
    const extra: Opened[] = [];
    afterEach(async () => {
      await Promise.all(extra.splice(0).map((opened) => opened.close(true)));
    });
    async function another(): Promise<Opened> {
      const opened = await openDatabase(target);
      extra.push(opened);
      return opened;
    }

    it(
      'registers the shard in the registry, and refuses a shard another database registered',
      async () => {
        const registryUrl = db().url!;
        await install(db().executor, { shard: 0 });
        const first = await another();
        const done = await sheaf(['install', '--url', first.database.url!, '--shard', '2', '--registry', registryUrl]);
        expect(done.stderr).toBe('');
        expect(done.stdout).toMatch(/: shard 2, layout sheaf, next_id\(\) in [^\n]+\n$/);
        const [row] = await db().executor.query<{ kind: string }>('select kind from sheaf.workers where worker_id = 2');
        expect(row?.kind).toBe('database');

        const second = await another();
        const refused = await sheaf([
          'install',
          '--url',
          second.database.url!,
          '--shard',
          '2',
          '--registry',
          registryUrl,
        ]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/shard 2 is held by database '.+'/);
        const [schema] = await second.database.executor.query<{ present: boolean }>(
          "select to_regnamespace('sheaf') is not null as present",
        );
        expect(schema?.present).toBe(false);

        const unreachable = await sheaf([
          'install',
          '--url',
          second.database.url!,
          '--shard',
          '3',
          '--registry',
          'postgres://postgres@127.0.0.1:1/none',
        ]);
        expect(unreachable.code).toBe(1);
        expect(unreachable.stderr).toMatch(/cannot reach the registry postgres:\/\/postgres@127\.0\.0\.1:1\/none/);
      },
      cliTimeout,
    );
  },
  { only: ['postgres'] },
);
