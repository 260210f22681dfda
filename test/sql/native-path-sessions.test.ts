import { decodeId, install } from '@sheaf/core';
import { expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import {
  describeNative,
  expectGeneratorPath,
  type GeneratorPath,
  nativePath,
  plpgsqlPath,
  takeIds as take,
} from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, idsOf } from '../support/pg-clock.js';

// Sessions already open when another one switches the path or the shard (docs/native.md): they
// keep working, and take only what the database issues now.
describeNative('sessions beside a change of path or shard', (db) => {
  const sql = () => db().executor;
  const shardsOf = (ids: readonly bigint[]) => new Set(ids.map((id) => decodeId(id).shardId));

  for (const [from, to] of [
    [plpgsqlPath, nativePath],
    [nativePath, plpgsqlPath],
  ] as const) {
    it(`a statement running when the path changes from ${from.name} to ${to.name} completes`, async () => {
      await install(sql(), { shard: 5, ...from.install('postgres') });
      const connection = await db().connect();
      try {
        // Planned on `from`; its first id is taken after the switch has committed.
        const running = connection.executor.query<{ id: unknown }>(
          `select sheaf.next_id() as id from generate_series(1, 3000) g
             where g <> 1 or pg_sleep(1.5) is not null`,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        await install(sql(), to.install('postgres'));
        await expectGeneratorPath(sql(), to);
        const ids = [...idsOf(await running), ...(await take(connection.executor, 3000))];
        expectIncreasing(ids);
        expect(new Set(ids.map((id) => decodeId(id).shardId))).toEqual(new Set([5]));
      } finally {
        await connection.close();
      }
    });
  }

  /**
   * Installs shard 3 on `path`, has a session (in a transaction or not) take ids of it, reconfigures
   * to shard 8 from another session: every id the first one takes after must be of shard 8.
   */
  async function reconfigureBeside(path: GeneratorPath, inTransaction: boolean): Promise<void> {
    await install(sql(), { shard: 3, ...path.install('postgres') });
    await expectGeneratorPath(sql(), path);
    const connection = await db().connect();
    const session = connection.executor;
    try {
      if (inTransaction) await session.query('begin isolation level repeatable read');
      const before = [...(await take(session, 1500)), ...(await take(session, 5, 'sheaf.next_id(3)'))];
      expect(shardsOf(before)).toEqual(new Set([3]));
      await install(sql(), { shard: 8 });
      const after = [
        ...(await take(session, 3000)),
        ...(await take(session, 5, 'sheaf.next_id(8)')),
        ...idsOf(await session.query<{ id: unknown }>('select sheaf.next_ids(10) as id')),
      ];
      expect(shardsOf(after)).toEqual(new Set([8]));
      // Shard 3 went back to the id space: this database issues it no more.
      await expectSheafRejection(session.query('select sheaf.next_id(3)'), 'SHARD_NOT_OWNED', 'shard 3');
      if (inTransaction) await session.query('rollback');
      expect(expectDistinct([...before, ...after, ...(await take(sql(), 1000))])).toBe(
        before.length + after.length + 1000,
      );
    } finally {
      await connection.close();
    }
  }

  for (const path of [plpgsqlPath, nativePath]) {
    it(`an open session issues only the new shard's ids [${path.name}]`, () => reconfigureBeside(path, false));
  }

  // The native path takes in the catalog's invalidations on every call.
  it(`so does a repeatable read transaction begun before the change [native]`, () =>
    reconfigureBeside(nativePath, true));
  // A known gap, named rather than asserted wrong: PL/pgSQL runs the bodies its transaction's catalog
  // cache holds until the transaction takes a new lock (measured: 3,000 ids of the shard it left).
  it.skip('so does a repeatable read transaction begun before the change [plpgsql]: not on PL/pgSQL', () =>
    reconfigureBeside(plpgsqlPath, true));
});
