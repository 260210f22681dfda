import { decodeId, install, isSheafError } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../cli/doctor-run.js';
import { sheaf } from '../cli/run-sheaf.js';
import { eventually } from '../support/eventually.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { takeIds } from '../support/generator-paths.js';
import { syncSchemaAndRows } from '../support/pg-copies.js';
import { createPgDatabase, openPgDatabase, type PgDatabase } from '../support/pg-database.js';
import { createScratchCluster, postgresBinDir, type ScratchCluster } from '../support/scratch-cluster.js';
import { sheafSettings } from '../support/sheaf-state.js';
import { selectedTargets } from '../support/targets.js';

const runnable = selectedTargets().includes('postgres') && postgresBinDir() !== undefined;
const publication = 'sheaf_test_everything';

/** `sql` must answer or fail within the generator's 2 s deadline (plus the round trip); never spin. */
async function withinDeadline(run: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { ms: performance.now() - started, error };
}

// PostgreSQL's own logical replication between two nodes, each installed with its own shard, set up
// the wrong way: a publication FOR ALL TABLES takes schema sheaf along, so node 1's settings row
// lands on node 2. Node 2 must never start issuing node 1's ids, and doctor must name the cause.
describe.skipIf(!runnable)('logical replication that carries schema sheaf [scratch clusters]', () => {
  let clusters: ScratchCluster[] = [];
  const pools: PgDatabase[] = [];
  let node1: PgDatabase;
  let node2: PgDatabase;

  beforeAll(async () => {
    clusters = await Promise.all([1, 2].map(() => createScratchCluster({ settings: { wal_level: 'logical' } })));
    pools.push(...(await Promise.all(clusters.map((cluster) => createPgDatabase(cluster.url, 'app')))));
    [node1, node2] = pools as [PgDatabase, PgDatabase];
    await install(node1.executor, { shard: 1 });
    await install(node2.executor, { shard: 2 });
    await node1.executor.query(`create publication ${publication} for all tables`);
    await node2.executor.query(
      `create subscription from_node1 connection 'host=127.0.0.1 port=${clusters[0]!.port} dbname=app user=postgres'
       publication ${publication} with (copy_data = false)`,
    );
    // Any write of node 1's settings row (an install, a reconfigure) replicates it whole.
    await node1.executor.query('update sheaf.settings set configured_at = now()');
    const { database_id: origin } = await sheafSettings(node1.executor);
    await eventually(
      async () => (await sheafSettings(node2.executor)).database_id === origin,
      30_000,
      "node 1's settings row on node 2",
    );
  }, 120_000);

  // Clusters first: a pool's end waits for a statement still running.
  afterAll(async () => {
    for (const cluster of clusters) cluster.destroy();
    await Promise.all(pools.map((database) => database.close()));
  });

  it("install() on node 2 refuses to take over node 1's shard from the replicated row", async () => {
    const refused = await install(node2.executor).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSheafError(refused), `install() resolved or failed without a SheafError: ${String(refused)}`).toBe(true);
    expect(String((refused as Error).message)).toMatch(new RegExp(`cop(y|ied)|${publication}`, 'i'));
  });

  it('node 2 never issues an id of shard 1: it issues shard 2 or refuses with DATABASE_COPIED', async () => {
    for (let i = 0; i < 20; i++) {
      const answer = await takeIds(node2.executor, 5).then(
        (ids) => ids.map((id) => decodeId(id).shardId),
        (error: unknown) => error,
      );
      if (Array.isArray(answer)) expect(answer).toEqual([2, 2, 2, 2, 2]);
      else await expectSheafRejection(Promise.reject(answer), 'DATABASE_COPIED');
    }
  });

  it('doctor over both nodes fails, naming the publication', { timeout: 60_000 }, async () => {
    const { code, report } = await doctor([node1.url, node2.url]);
    expect(code).toBe(1);
    const failures = [...report.databases.flatMap((entry) => entry.checks), ...(report.idSpace?.checks ?? [])].filter(
      (check) => check.status === 'fail',
    );
    expect(JSON.stringify(failures)).toContain(publication);
  });

  // What a schema synchroniser leaves (pglogical's synchronize_structure, a migration tool): sheaf's
  // rows copied into a fresh schema whose sequences were never called.
  describe('a schema synchronised with its rows but fresh sequences', () => {
    let synced: PgDatabase;

    beforeAll(async () => {
      // A statement timeout far beyond the deadline: a spinning call fails the test instead of hanging it.
      await createPgDatabase(clusters[1]!.url, 'synced').then((database) => database.close());
      syncSchemaAndRows(node1.url, clusters[1]!.urlOf('synced'), 'sheaf');
      synced = openPgDatabase(`${clusters[1]!.urlOf('synced')}?options=-c%20statement_timeout%3D5000`);
      pools.push(synced);
    }, 60_000);

    it('next_id() answers or fails within 2 s, never spins', async () => {
      for (const sql of ['select sheaf.next_id()', 'select sheaf.next_ids(10)']) {
        const { ms, error } = await withinDeadline(() => synced.executor.query(sql));
        expect(ms, `${sql} took ${Math.round(ms)} ms`).toBeLessThan(2_500);
        if (error) expect(isSheafError(error), `${sql} failed without a SheafError: ${String(error)}`).toBe(true);
      }
    });

    it('status reports it without crashing', { timeout: 60_000 }, async () => {
      const run = await sheaf(['status', '--url', clusters[1]!.urlOf('synced'), '--json']);
      expect(run.stderr).not.toMatch(/TypeError|RangeError|at .+\.js:\d+/);
      // A finding, not a crash: the copied state and the sequences never set are named, exit 1.
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/\((STATE_DAMAGED|DATABASE_COPIED)\)\n$/);
      expect(JSON.parse(run.stdout)).toMatchObject({ installed: true });
    });

    it('install({ shard: 3 }) makes it a database of its own that issues ids', async () => {
      await install(synced.executor, { shard: 3 });
      const { ms, error } = await withinDeadline(() => takeIds(synced.executor, 100));
      expect(error).toBeUndefined();
      expect(ms).toBeLessThan(2_500);
      expect((await takeIds(synced.executor, 10)).map((id) => decodeId(id).shardId)).toEqual(Array(10).fill(3));
    });
  });
});
