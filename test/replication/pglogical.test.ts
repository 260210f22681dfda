import { decodeId, install } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../cli/doctor-run.js';
import { eventually } from '../support/eventually.js';
import { createPgDatabase, type PgDatabase } from '../support/pg-database.js';
import { createNode, dsnOf, pglogicalMissing, pglogicalSettings, subscribe } from '../support/pglogical.js';
import { createScratchCluster, type ScratchCluster } from '../support/scratch-cluster.js';
import { selectedTargets } from '../support/targets.js';

const missing = selectedTargets().includes('postgres') ? pglogicalMissing() : 'postgres not selected';
if (missing) it.skip(`two-node multi-primary with pglogical [scratch clusters]: ${missing}`);

const set = 'sheaf_test_app_tables';
const writersPerNode = 4;
const writeForMs = 3_000;

interface Order {
  id: string;
  node: number;
}

// The recipe of docs/replication.md: two primaries, each installed with a shard of its own,
// replicating only application tables both ways. Ids never collide, so no row conflicts; the shard
// of every id names the node that made it.
describe.skipIf(missing !== undefined)('two-node multi-primary with pglogical [scratch clusters]', () => {
  let clusters: ScratchCluster[] = [];
  let nodes: PgDatabase[] = [];

  beforeAll(async () => {
    clusters = await Promise.all([1, 2].map(() => createScratchCluster({ settings: pglogicalSettings() })));
    nodes = await Promise.all(clusters.map((cluster) => createPgDatabase(cluster.url, 'app')));
    for (const [i, node] of nodes.entries()) {
      await install(node.executor, { shard: i + 1 });
      await node.executor.query(
        'create table orders (id bigint primary key default sheaf.next_id(), node integer not null, n integer not null)',
      );
      await createNode(node.executor, `node${i + 1}`, dsnOf(clusters[i]!.port, 'app'));
      await node.executor.query('select pglogical.create_replication_set($1)', [set]);
      await node.executor.query("select pglogical.replication_set_add_table($1, 'public.orders')", [set]);
    }
    for (const [i, node] of nodes.entries()) {
      const other = clusters[1 - i]!;
      await subscribe(node.executor, `from_node${2 - i}`, dsnOf(other.port, 'app'), set);
    }
  }, 120_000);

  // Clusters first: a pool's end waits for a statement still running.
  afterAll(async () => {
    for (const cluster of clusters) cluster.destroy();
    await Promise.all(nodes.map((node) => node.close()));
  });

  const orders = async (node: PgDatabase) =>
    node.executor.query<Order>('select id::text as id, node from orders order by id');

  it('concurrent inserts on both nodes replicate without a conflict, each id of its node’s shard', async () => {
    let inserted = 0;
    const stopAt = Date.now() + writeForMs;
    const writers = nodes.flatMap((node, i) =>
      Array.from({ length: writersPerNode }, async () => {
        while (Date.now() < stopAt) {
          await node.executor.query('insert into orders (node, n) select $1, g from generate_series(1, 10) g', [i + 1]);
          inserted += 10;
        }
      }),
    );
    await Promise.all(writers);
    await eventually(
      async () => {
        const counts = await Promise.all(
          nodes.map(
            async (node) => (await node.executor.query<{ n: number }>('select count(*)::int as n from orders'))[0]!.n,
          ),
        );
        return counts.every((count) => count === inserted);
      },
      60_000,
      `${inserted} orders on both nodes`,
    );
    const [one, two] = await Promise.all(nodes.map(orders));
    expect(one).toEqual(two);
    const wrongShard = one!.filter((row) => decodeId(row.id).shardId !== row.node);
    expect(wrongShard).toEqual([]);
    expect(new Set(one!.map((row) => row.node))).toEqual(new Set([1, 2]));
    // pglogical logs every conflict it resolves (pglogical.conflict_log_level, LOG by default).
    expect(
      clusters.flatMap((cluster) => cluster.log().split('\n')).filter((line) => line.includes('CONFLICT')),
    ).toEqual([]);
    for (const node of nodes) {
      const rows = await node.executor.query<{ status: string }>(
        'select status from pglogical.show_subscription_status()',
      );
      expect(rows.map((row) => row.status)).toEqual(['replicating']);
    }
  }, 120_000);

  it('doctor over both nodes fails once a replication set carries a table of schema sheaf, naming the set', {
    timeout: 60_000,
  }, async () => {
    await nodes[0]!.executor.query("select pglogical.replication_set_add_table($1, 'sheaf.settings')", [set]);
    const { code, report } = await doctor(nodes.map((node) => node.url));
    expect(code).toBe(1);
    const failures = [...report.databases.flatMap((entry) => entry.checks), ...(report.idSpace?.checks ?? [])].filter(
      (check) => check.status === 'fail',
    );
    expect(JSON.stringify(failures)).toContain(set);
  });
});
