import { decodeId, install, presets, sqlVersion, uninstall } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { queryState } from '../support/state-sql.js';

// install() at start-up, with no options, must leave a configured database as it was.
describeTargets('install() keeps the configured shard and layout when options are left out', (db, target) => {
  const dialect = target === 'mariadb' ? 'mysql' : 'postgres';
  const nextId = dialect === 'mysql' ? 'select sheaf_next_id() as id' : 'select sheaf.next_id() as id';
  const settings =
    dialect === 'mysql'
      ? 'select shard_id, layout_name, test_clock from {state}.sheaf_settings'
      : 'select shard_id, layout_name, test_clock from sheaf.settings';
  const configured = async () => {
    const [row] = await queryState<{ shard_id: unknown; layout_name: string; test_clock: unknown }>(
      db().executor,
      settings,
    );
    return {
      shard: Number(row!.shard_id),
      layout: row!.layout_name,
      testClock: Number(row!.test_clock) === 1 || row!.test_clock === true,
    };
  };
  const issued = async () => {
    const [row] = await db().executor.query<{ id: string }>(nextId);
    return row!.id;
  };

  it('a fresh install without options is shard 0, layout sheaf', async () => {
    await uninstall(db().executor, { force: true });
    await install(db().executor);
    expect(await configured()).toEqual({ shard: 0, layout: 'sheaf', testClock: false });
  });

  it('shard 7 stays shard 7 after install() without options, and ids decode to shard 7', async () => {
    await uninstall(db().executor, { force: true });
    await install(db().executor, { shard: 7 });
    expect(decodeId(await issued(), presets.sheaf).shardId).toBe(7);
    expect(await install(db().executor)).toEqual({ version: sqlVersion(dialect), applied: [] });
    expect(await configured()).toMatchObject({ shard: 7 });
    expect(decodeId(await issued(), presets.sheaf).shardId).toBe(7);
  });

  it('a new shard keeps the layout and the test clock; a new layout keeps the shard', async () => {
    await uninstall(db().executor, { force: true });
    await install(db().executor, { shard: 5, layout: 'js53', testClock: true });
    await install(db().executor, { shard: 6 });
    expect(await configured()).toEqual({ shard: 6, layout: 'js53', testClock: true });
    await install(db().executor, { layout: 'twitter' });
    expect(await configured()).toEqual({ shard: 6, layout: 'twitter', testClock: true });
    expect(decodeId(await issued(), presets.twitter).shardId).toBe(6);
  });

  it('an upgrade from the previous version keeps shard 8', async () => {
    await uninstall(db().executor, { force: true });
    const previous = sqlVersion(dialect) - 1;
    await install(db().executor, { shard: 8, upTo: previous });
    expect(await install(db().executor)).toEqual({ version: sqlVersion(dialect), applied: [sqlVersion(dialect)] });
    expect(await configured()).toMatchObject({ shard: 8 });
    expect(decodeId(await issued(), presets.sheaf).shardId).toBe(8);
  });

  // Upgrades from every earlier version configured as shard 7 keep it: the upgrade loops of
  // install-postgres.test.ts and mysql-current-definitions.test.ts check that beside the catalog.

  it('a re-run without options does not forget that ids were issued: the layout stays locked', async () => {
    await uninstall(db().executor, { force: true });
    await install(db().executor, { shard: 2 });
    await issued();
    await install(db().executor);
    await install(db().executor, { shard: 3 });
    await expectSheafRejection(install(db().executor, { layout: 'twitter' }), 'LAYOUT_LOCKED', 'already issued');
    expect(await configured()).toMatchObject({ shard: 3, layout: 'sheaf' });
  });
});
