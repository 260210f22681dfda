import { decodeId, install, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../cli/doctor-run.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { takeIds } from '../support/generator-paths.js';
import { dumpAndRestore, templateCopy } from '../support/pg-copies.js';
import {
  createPgDatabase,
  dropPgDatabases,
  openPgDatabase,
  type PgDatabase,
  pgDatabaseName,
} from '../support/pg-database.js';
import { createScratchCluster, postgresBinDir, type ScratchCluster } from '../support/scratch-cluster.js';
import { databaseHolders, type SheafSettings, sheafSettings, sheafSnapshot } from '../support/sheaf-state.js';
import { pgUrl, selectedTargets, withDatabase } from '../support/targets.js';

const runnable = selectedTargets().includes('postgres') && postgresBinDir() !== undefined;

/** Whether sheaf's settings are bound to the node the database runs on (sheaf.node_identity()). */
async function boundHere(executor: SqlExecutor): Promise<boolean> {
  const [row] = await executor.query<{ bound: boolean }>(
    'select node_identity = sheaf.node_identity() as bound from sheaf.settings',
  );
  return row?.bound === true;
}

// A database installed with shard 1 and copied twice without its server: `create database …
// template` on the same server, and pg_dump | pg_restore onto a scratch cluster (another system
// identifier). A copy carries the original's shard, database id and generator state: issuing ids
// there would duplicate the original's, so it must refuse until told what it is.
describe.skipIf(!runnable)('copies of an installed database [postgres]', () => {
  let cluster: ScratchCluster;
  const made: string[] = [];
  const pools: PgDatabase[] = [];
  let orig: PgDatabase;
  let original: SheafSettings;
  // Made from the template: `copy` gets a shard of its own, `registered` one in orig's registry.
  let copy: PgDatabase;
  let registered: PgDatabase;
  let restored: PgDatabase;

  const open = (url: string) => {
    const database = openPgDatabase(url);
    pools.push(database);
    return database;
  };

  beforeAll(async () => {
    cluster = await createScratchCluster();
    const name = pgDatabaseName('orig');
    made.push(name);
    const first = await createPgDatabase(pgUrl, name);
    await install(first.executor, { shard: 1 });
    await takeIds(first.executor, 100);
    original = await sheafSettings(first.executor);
    await first.close();
    for (const what of ['copy', 'registered']) {
      const copyName = pgDatabaseName(what);
      made.push(copyName);
      await templateCopy(pgUrl, name, copyName);
    }
    orig = open(withDatabase(pgUrl, name));
    copy = open(withDatabase(pgUrl, made[1]!));
    registered = open(withDatabase(pgUrl, made[2]!));
    await createPgDatabase(cluster.url, 'restored').then((database) => database.close());
    dumpAndRestore(orig.url, cluster.urlOf('restored'));
    restored = open(cluster.urlOf('restored'));
  }, 120_000);

  // The cluster first: a pool's end waits for a statement still running.
  afterAll(async () => {
    cluster?.destroy();
    await Promise.all(pools.map((database) => database.close()));
    await dropPgDatabases(pgUrl, made);
  });

  // The template copy is on the same server, the restored one on a cluster of another system identifier.
  const kinds = ['template copy', 'restored copy'] as const;
  const copyOf = (kind: (typeof kinds)[number]) => (kind === 'template copy' ? copy : restored);

  it('the original keeps issuing its ids', async () => {
    const ids = await takeIds(orig.executor, 10);
    expect(ids.every((id) => decodeId(id).shardId === 1)).toBe(true);
  });

  it.each(kinds)('next_id() on the %s refuses with DATABASE_COPIED naming the original', async (kind) => {
    const database = copyOf(kind);
    await expectSheafRejection(
      database.executor.query('select sheaf.next_id()'),
      'DATABASE_COPIED',
      original.database_name,
      '--shard',
      '--moved',
    );
    await expectSheafRejection(database.executor.query('select sheaf.next_ids(10)'), 'DATABASE_COPIED');
  });

  it.each(kinds)('install() without a shard on the %s refuses with DATABASE_COPIED, changing nothing', async (kind) => {
    const database = copyOf(kind);
    const before = await sheafSnapshot(database.executor);
    await expectSheafRejection(install(database.executor), 'DATABASE_COPIED', original.database_name);
    expect(await sheafSnapshot(database.executor)).toBe(before);
  });

  it.each(kinds)('doctor over the original and the %s fails', { timeout: 60_000 }, async (kind) => {
    const database = copyOf(kind);
    const { code, report } = await doctor([orig.url, database.url]);
    expect(code).toBe(1);
    const failures = [...report.databases.flatMap((entry) => entry.checks), ...(report.idSpace?.checks ?? [])].filter(
      (check) => check.status === 'fail',
    );
    expect(failures.map((check) => check.message).join('\n')).toMatch(/cop(y|ied)|clone|identity/i);
  });

  it('install({ shard: 2 }) makes the template copy a database of its own, issuing shard 2', async () => {
    await install(copy.executor, { shard: 2 });
    const mine = await sheafSettings(copy.executor);
    expect(mine.shard_id).toBe(2);
    expect(mine.database_id).not.toBe(original.database_id);
    expect(await boundHere(copy.executor)).toBe(true);
    const ids = await takeIds(copy.executor, 1000);
    expect(ids.every((id) => decodeId(id).shardId === 2)).toBe(true);
    // Ids and settings of the original are untouched.
    expect(await sheafSettings(orig.executor)).toEqual(original);
  });

  it('install({ moved: true }) keeps the restored copy’s shard 1 and database id, and generation works', async () => {
    await install(restored.executor, { moved: true });
    const mine = await sheafSettings(restored.executor);
    expect({ shard: mine.shard_id, id: mine.database_id }).toEqual({
      shard: 1,
      id: original.database_id,
    });
    expect(await boundHere(restored.executor)).toBe(true);
    // The original may have handed out ids after the dump: the next block is rebased, 3 s ahead.
    const movedAt = Date.now();
    const ids = await takeIds(restored.executor, 1000);
    expect(decodeId(ids[0]!).ms).toBeGreaterThanOrEqual(movedAt + 3000);
    expect(ids.every((id) => decodeId(id).shardId === 1)).toBe(true);
  });

  it('install({ shard: 2, registry: orig }) on a copy registers shard 2 in the original’s registry', async () => {
    await install(registered.executor, { shard: 2, registry: orig.executor });
    const mine = await sheafSettings(registered.executor);
    expect(mine.database_id).not.toBe(original.database_id);
    expect(await databaseHolders(orig.executor)).toEqual([
      { worker_id: 1, database_id: original.database_id },
      { worker_id: 2, database_id: mine.database_id },
    ]);
    const third = await createPgDatabase(pgUrl, pgDatabaseName('third'));
    made.push(third.name);
    pools.push(third);
    await expectSheafRejection(install(third.executor, { shard: 2, registry: orig.executor }), 'SHARD_TAKEN');
  });

  it('a copy registered elsewhere is named as itself there, not as the original', async () => {
    const mine = await sheafSettings(registered.executor);
    expect(mine.database_name).not.toBe(original.database_name);
    expect(mine.database_name).toContain(registered.name);
  });
});
