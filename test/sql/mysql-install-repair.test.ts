import { decodeId, install, presets, type SqlExecutor, sqlVersion, uninstall } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { failingAt } from '../support/failing-executor.js';
import { nextIds } from '../support/mysql-calls.js';
import { queryState } from '../support/state-sql.js';

const versions = async (executor: SqlExecutor) =>
  (
    await queryState<{ version: number }>(
      executor,
      'select version from {state}.sheaf_schema_versions order by version',
    )
  ).map((row) => Number(row.version));

describeTargets(
  'a MySQL install that failed half-way through a file is repaired by the next install',
  (db) => {
    const mid = /^create procedure sheaf_alloc_segment/m;

    for (const when of ['before', 'after'] as const) {
      it(`a failure ${when} a statement in the middle of file 3 leaves it unrecorded; install() then applies it`, async () => {
        await uninstall(db().executor, { force: true });
        await install(db().executor, { shard: 9, upTo: 2 });
        await expect(install(failingAt(db().executor, mid, when))).rejects.toThrow(/injected failure/);
        // Half of file 3 is there, but not its version row.
        expect(await versions(db().executor)).toEqual([1, 2]);
        const [routine] = await db().executor.query<{ n: number }>(
          "select count(*) as n from information_schema.routines where routine_schema = database() and routine_name = 'sheaf_create_ticket'",
        );
        expect(Number(routine!.n)).toBe(1);

        const repaired = await install(db().executor);
        expect(repaired.applied).toEqual(Array.from({ length: sqlVersion('mysql') - 2 }, (_, index) => index + 3));
        expect(await versions(db().executor)).toEqual(Array.from({ length: sqlVersion('mysql') }, (_, i) => i + 1));
        const ids = await nextIds(db().executor, 10);
        expect(new Set(ids).size).toBe(10);
        expect(ids.every((id) => decodeId(id, presets.sheaf).shardId === 9)).toBe(true);
        await queryState(db().executor, "call {state}.sheaf_create_segment('orders', 100, 0, null)");
        const [range] = await db().executor.query<{ first_id: string }>("call sheaf_alloc_segment('orders', null)");
        expect(String(range!.first_id)).toBe('1');
      });
    }

    it('a failure in the first file, after some of its tables exist, is repaired too', async () => {
      await uninstall(db().executor, { force: true });
      await expect(
        install(failingAt(db().executor, /^create table sheaf_segments/m, 'after'), { shard: 4 }),
      ).rejects.toThrow(/injected failure/);
      expect(await versions(db().executor)).toEqual([]);
      await install(db().executor, { shard: 4 });
      const [row] = await db().executor.query<{ id: string }>('select sheaf_next_id() as id');
      expect(decodeId(row!.id, presets.sheaf).shardId).toBe(4);
      const [settings] = await queryState<{ n: number }>(
        db().executor,
        'select count(*) as n from {state}.sheaf_settings',
      );
      expect(Number(settings!.n)).toBe(1);
    });

    // 0012 moves the tables to sheaf_<database> and replaces the routines by forwards: stopped at any
    // of those points, the next install finishes it, and ids continue above every id issued before.
    for (const [point, at] of [
      ['before the move', /^call `[^`]+`\.sheaf__move_0012/m],
      ['after the move', /^call `[^`]+`\.sheaf__move_0012/m],
      ['between forwards', /^create definer = current_user procedure `[^`]+`\.sheaf_next_ids/m],
      ['before dropping a helper', /^drop function if exists `[^`]+`\.sheaf__claim_chunk/m],
    ] as const) {
      it(`the move of version 12 stopped ${point} is finished by the next install; ids continue`, async () => {
        await uninstall(db().executor, { force: true });
        await install(db().executor, { shard: 6, upTo: 11 });
        const before = await nextIds(db().executor, 300);
        const when = point === 'before the move' ? 'before' : 'after';
        await expect(install(failingAt(db().executor, at, when))).rejects.toThrow(/injected failure/);
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await install(db().executor)).applied).toEqual(
          Array.from({ length: sqlVersion('mysql') - 11 }, (_, i) => i + 12),
        );
        expect(await versions(db().executor)).toEqual(Array.from({ length: sqlVersion('mysql') }, (_, i) => i + 1));
        const after = await nextIds(db().executor, 300);
        const last = before.reduce((a, b) => (a > b ? a : b));
        expect(after.every((id) => id > last && decodeId(id, presets.sheaf).shardId === 6)).toBe(true);
        const [left] = await db().executor.query<{ n: number }>(
          `select count(*) as n from information_schema.tables where table_schema = database() and table_name like 'sheaf\\_%'`,
        );
        expect(Number(left!.n)).toBe(0);
      });
    }

    it('refuses a sheaf_<database> that someone else filled first, changing nothing; an empty one is used', async () => {
      await uninstall(db().executor, { force: true });
      const state = `\`sheaf_${new URL(String(db().url)).pathname.slice(1)}\``;
      await db().executor.query(`create database ${state}`);
      await db().executor.query(`create table ${state}.sheaf_settings (shard_id integer)`);
      await expectSheafRejection(install(db().executor, { shard: 3 }), 'UNSAFE_OWNERSHIP', 'did not make');
      const [made] = await db().executor.query<{ n: number }>(
        `select count(*) as n from information_schema.tables where table_schema = database() and table_name like 'sheaf\\_%'`,
      );
      expect(Number(made!.n)).toBe(0);
      await db().executor.query(`drop table ${state}.sheaf_settings`);
      await install(db().executor, { shard: 3 });
      const [row] = await db().executor.query<{ id: string }>('select sheaf_next_id() as id');
      expect(decodeId(row!.id, presets.sheaf).shardId).toBe(3);
    });
  },
  { only: ['mariadb'] },
);
