import { decodeId, install } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../cli/doctor-run.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { takeIds } from '../support/generator-paths.js';
import { createPgDatabase, openPgDatabase, type PgDatabase } from '../support/pg-database.js';
import { createScratchCluster, postgresBinDir, type ScratchCluster } from '../support/scratch-cluster.js';
import { createStandby } from '../support/scratch-standby.js';
import { databaseHolders, type SheafSettings, sheafSettings } from '../support/sheaf-state.js';
import { selectedTargets } from '../support/targets.js';

const runnable = selectedTargets().includes('postgres') && postgresBinDir() !== undefined;

// A physical clone used to add a node: a standby made with pg_basebackup and promoted while its
// original still runs. It has the original's system identifier and oids, so no local check can
// tell it from the original; doctor over both URLs must, and `install({ clone, shard })` makes it a
// database of its own.
describe.skipIf(!runnable)('a physical clone promoted beside its original [scratch clusters]', () => {
  const clusters: ScratchCluster[] = [];
  const pools: PgDatabase[] = [];
  let orig: PgDatabase;
  let clone: PgDatabase;
  let original: SheafSettings;

  beforeAll(async () => {
    const primary = await createScratchCluster();
    clusters.push(primary);
    orig = await createPgDatabase(primary.url, 'app');
    pools.push(orig);
    await install(orig.executor, { shard: 1 });
    await takeIds(orig.executor, 100);
    original = await sheafSettings(orig.executor);
    const standby = await createStandby(primary);
    clusters.push(standby);
    await standby.caughtUp();
    standby.promote();
    clone = openPgDatabase(standby.urlOf('app'));
    pools.push(clone);
  }, 120_000);

  // Clusters first: a pool's end waits for a statement still running.
  afterAll(async () => {
    for (const cluster of clusters) cluster.destroy();
    await Promise.all(pools.map((database) => database.close()));
  });

  it('has the original’s identity: both issue shard 1, which no local check can see', async () => {
    const [here, there] = await Promise.all(
      [orig, clone].map(async (database) => {
        const [row] = await database.executor.query<{ identity: string }>('select sheaf.node_identity() as identity');
        return row!.identity;
      }),
    );
    expect(there).toBe(here);
    const ids = await takeIds(clone.executor, 10);
    expect(ids.every((id) => decodeId(id).shardId === 1)).toBe(true);
  });

  it('doctor over the original and the clone fails', { timeout: 60_000 }, async () => {
    const { code, report } = await doctor([orig.url, clone.url]);
    expect(code).toBe(1);
    expect(report.summary.fail).toBeGreaterThan(0);
  });

  it('install({ clone, shard: 2, registry }) gives the clone a database id of its own and shard 2 in the original’s registry', async () => {
    await install(clone.executor, { clone: true, shard: 2, registry: orig.executor });
    const mine = await sheafSettings(clone.executor);
    expect(mine.shard_id).toBe(2);
    expect(mine.database_id).not.toBe(original.database_id);
    expect(await databaseHolders(orig.executor)).toEqual([
      { worker_id: 1, database_id: original.database_id },
      { worker_id: 2, database_id: mine.database_id },
    ]);
    expect((await takeIds(clone.executor, 10)).every((id) => decodeId(id).shardId === 2)).toBe(true);
    expect((await takeIds(orig.executor, 10)).every((id) => decodeId(id).shardId === 1)).toBe(true);
    const third = await createPgDatabase(clusters[0]!.url, 'third');
    pools.push(third);
    await expectSheafRejection(install(third.executor, { shard: 2, registry: orig.executor }), 'SHARD_TAKEN');
  });
});
