import { install } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';

// install()'s moved and clone (docs/replication.md): contradictions and dialects without a node
// identity are refused before anything changes.
describeTargets('install({ moved, clone })', (db, target) => {
  const sql = () => db().executor;
  const mysql = target !== 'postgres' && target !== 'pglite';
  const recorded = () => sql().query("select count(*)::int as n from pg_namespace where nspname = 'sheaf'");

  if (mysql) {
    it('is refused on MySQL/MariaDB with UNSUPPORTED_DIALECT', async () => {
      await expectSheafRejection(install(sql(), { moved: true }), 'UNSUPPORTED_DIALECT', 'moved');
      await expectSheafRejection(install(sql(), { clone: true, shard: 2 }), 'UNSUPPORTED_DIALECT', 'clone');
    });
    return;
  }

  it('refuses a clone without a shard, and a clone that is also moved, changing nothing', async () => {
    const before = await recorded();
    await expectSheafRejection(install(sql(), { clone: true }), 'INVALID_ARGUMENT', 'needs a shard');
    await expectSheafRejection(
      install(sql(), { clone: true, moved: true, shard: 2 }),
      'INVALID_ARGUMENT',
      'contradict',
    );
    expect(await recorded()).toEqual(before);
  });

  it('moved on a database that is not a copy changes nothing: same shard, same database id', async () => {
    await install(sql(), { shard: 4 });
    const [before] = await sql().query<{ id: string }>('select database_id::text as id from sheaf.settings');
    await install(sql(), { moved: true });
    const [after] = await sql().query<{ id: string; shard: number }>(
      'select database_id::text as id, shard_id as shard from sheaf.settings',
    );
    expect(after).toEqual({ id: before!.id, shard: 4 });
  });
});
