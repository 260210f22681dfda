import { sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../cli/doctor-run.js';
import { sheaf } from '../cli/run-sheaf.js';
import { createScratchGalera, type GaleraNode, galeraMissing, type ScratchGalera } from '../support/scratch-galera.js';
import { mysqlUrl, withDatabase } from '../support/targets.js';

// sheaf on a three-node Galera cluster (docs/galera.md): every node a primary, each issuing a shard
// of its own, whatever wsrep_auto_increment_control says.
const missing = galeraMissing();
const sequenceBits = 10;
const shardBits = 10;

let cluster: ScratchGalera;

function connect(node: GaleraNode, database: string) {
  return mysql.createConnection({
    host: '127.0.0.1',
    port: node.port,
    user: 'root',
    database,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}

async function onEach(statement: string): Promise<void> {
  for (const node of cluster.nodes) {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root' });
    await connection.query(statement);
    await connection.end();
  }
}

/** The shard field of a `sheaf`-layout id. */
const shardOf = (id: bigint) => Number((id >> BigInt(sequenceBits)) & BigInt((1 << shardBits) - 1));

interface Load {
  /** Acknowledged ids by node index. */
  readonly ids: bigint[][];
  /** Statements that got no answer within the timeout. */
  readonly unanswered: number;
  /** Errors by driver code. */
  readonly errors: Record<string, number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `perNode` connections on each node insert one row at a time with RETURNING until `stop` settles;
 * a statement unanswered after 10 s counts as unanswered (its connection is replaced).
 */
async function load(database: string, perNode: number, stop: Promise<unknown>): Promise<Load> {
  const ids: bigint[][] = cluster.nodes.map(() => []);
  const errors: Record<string, number> = {};
  let unanswered = 0;
  let stopped = false;
  const halt = () => {
    stopped = true;
  };
  stop.then(halt, halt);
  const writer = async (index: number) => {
    const node = cluster.nodes[index]!;
    let connection: mysql.Connection = await connect(node, database);
    while (!stopped) {
      try {
        const [rows] = await connection.query({
          sql: 'insert into orders (node) values (?) returning id',
          values: [node.name],
          timeout: 10_000,
        });
        ids[index]!.push(BigInt((rows as { id: string }[])[0]!.id));
      } catch (error) {
        const code = String((error as { code?: unknown }).code);
        if (code === 'PROTOCOL_SEQUENCE_TIMEOUT') unanswered++;
        else errors[code] = (errors[code] ?? 0) + 1;
        if (code === 'PROTOCOL_SEQUENCE_TIMEOUT' || (error as { fatal?: unknown }).fatal) {
          connection.destroy();
          // A node that was killed answers again once it has rejoined.
          const fresh = await reconnect(node, database, () => stopped);
          if (fresh === undefined) return;
          connection = fresh;
        } else {
          // A joining node refuses statements at once (ER_UNKNOWN_COM_ERROR) until it is synced.
          await sleep(100);
        }
      }
    }
    await connection.end();
  };
  await Promise.all(cluster.nodes.flatMap((_, index) => Array.from({ length: perNode }, () => writer(index))));
  return { ids, unanswered, errors };
}

async function reconnect(node: GaleraNode, database: string, stopped: () => boolean) {
  while (!stopped()) {
    try {
      return await connect(node, database);
    } catch {
      await sleep(100);
    }
  }
  return undefined;
}

async function rowCounts(database: string): Promise<number[]> {
  const counts: number[] = [];
  for (const node of cluster.nodes) {
    const connection = await connect(node, database);
    // Waits until this node has applied everything committed before the read.
    await connection.query('set session wsrep_sync_wait = 1');
    const [rows] = await connection.query('select count(*) as n from orders');
    counts.push(Number((rows as { n: unknown }[])[0]!.n));
    await connection.end();
  }
  return counts;
}

async function createOrders(database: string): Promise<void> {
  const connection = await connect(cluster.nodes[0]!, database);
  await connection.query('create table orders (id bigint primary key, node varchar(16) not null)');
  await connection.query(sheafTriggerSql('orders', 'id', { database }).create);
  await connection.end();
}

async function freshDatabase(name: string): Promise<void> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: cluster.nodes[0]!.port, user: 'root' });
  await connection.query(`create database ${name}`);
  await connection.end();
}

const url = (node: GaleraNode, database: string) => `${node.url}${database}`;

describe.skipIf(missing !== undefined)(`sheaf on a Galera cluster${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    cluster = await createScratchGalera(3);
  }, 300_000);

  afterAll(() => cluster?.destroy());

  it('three nodes issue three shards: no duplicate and every statement answered, with auto-increment control off and on', async () => {
    await freshDatabase('shop');
    for (const [index, node] of cluster.nodes.entries()) {
      const run = await sheaf(['install', '--url', url(node, 'shop'), '--shard', String(index + 1)]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    await createOrders('shop');
    const runs: Load[] = [];
    for (const control of ['OFF', 'ON']) {
      // Off, every node takes every counter value: only the shard keeps two nodes' ids apart.
      await onEach(`set global wsrep_auto_increment_control = ${control}`);
      if (control === 'OFF') await onEach('set global auto_increment_increment = 1, global auto_increment_offset = 1');
      runs.push(await load('shop', 4, sleep(3_000)));
    }
    const all = runs.flatMap((run) => run.ids.flat());
    for (const run of runs) {
      expect(run.unanswered).toBe(0);
      expect(run.errors).toEqual({});
      run.ids.forEach((ids, index) => {
        expect(ids.length).toBeGreaterThan(100);
        expect(new Set(ids.map(shardOf))).toEqual(new Set([index + 1]));
      });
    }
    expect(new Set(all).size).toBe(all.length);
    expect(await rowCounts('shop')).toEqual([all.length, all.length, all.length]);
    const report = await doctor(cluster.nodes.map((node) => url(node, 'shop')));
    expect(report.report.databases.flatMap((db) => db.checks.filter((check) => check.status === 'fail'))).toEqual([]);
    expect(report.code).toBe(0);
    // Each URL issues its node's shard, not the settings row's (shard 1 on every node).
    report.report.databases.forEach((db, index) => {
      expect(db.checks.find((check) => check.name === 'shard')?.details).toEqual({ shard: index + 1 });
      expect(db.checks.find((check) => check.name === 'galera')).toMatchObject({
        status: 'ok',
        message: `each node issues a shard of its own: ${[1, 2, 3]
          .map((n) => `node${n} → shard ${n}${n === index + 1 ? ' (this node)' : ''}`)
          .join(', ')}`,
        details: { node: `node${index + 1}`, nodes: { node1: 1, node2: 2, node3: 3 } },
      });
    });
  }, 120_000);

  it('a node without a shard of its own refuses, and one cannot take another node’s shard', async () => {
    await freshDatabase('depot');
    expect((await sheaf(['install', '--url', url(cluster.nodes[0]!, 'depot'), '--shard', '7'])).code).toBe(0);
    // The install's own claim moved the shared counter by auto_increment_increment (3 with
    // wsrep_auto_increment_control ON): no id yet.
    const first = await sheaf(['status', '--url', url(cluster.nodes[0]!, 'depot')]);
    expect(first.stdout).toMatch(/^ids issued {3}no$/m);
    expect(first.stdout).toMatch(/^galera node {2}node1: shard 7$/m);
    const unbound = await sheaf(['status', '--url', url(cluster.nodes[1]!, 'depot')]);
    expect(unbound.code).toBe(0);
    expect(unbound.stdout).toMatch(/^galera node {2}node2: no shard of its own, so it issues no ids \(NODE_UNBOUND\)/m);
    expect(unbound.stdout).toMatch(
      /^warning {6}Galera nodes node2 \(.+\) and node3 \(.+\) have no shard of their own/m,
    );
    const second = await connect(cluster.nodes[1]!, 'depot');
    await expect(second.query('select sheaf_next_id() as id')).rejects.toMatchObject({ errno: 30025 });
    await expect(second.query('call sheaf_next_ids(5)')).rejects.toMatchObject({ errno: 30025 });
    await second.end();
    // The configured shard is node1's: without --shard, node2 would share it.
    const taken = await sheaf(['install', '--url', url(cluster.nodes[1]!, 'depot')]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/shard 7 is taken by Galera node node1 \(SHARD_TAKEN\)/);
    const own = await sheaf(['install', '--url', url(cluster.nodes[1]!, 'depot'), '--shard', '8']);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/: shard 8, layout sheaf/);
    const moved = await sheaf(['install', '--url', url(cluster.nodes[1]!, 'depot'), '--shard', '9']);
    expect(moved.stderr).toMatch(/issues shard 8, not 9: a node keeps its shard/);
    const node2 = await connect(cluster.nodes[1]!, 'depot');
    const [rows] = await node2.query('select sheaf_next_id() as id');
    expect(shardOf(BigInt((rows as { id: string }[])[0]!.id))).toBe(8);
    // node3 has issued nothing, but the cluster has: node2's counter moved on every node.
    const third = await sheaf(['status', '--url', url(cluster.nodes[2]!, 'depot'), '--json']);
    expect(JSON.parse(third.stdout)).toMatchObject({ idsIssued: true, galera: { node: 'node3', shard: null } });
    // Only its own shard, not the database's configured one.
    await expect(node2.query('select sheaf_next_shard_id(7) as id')).rejects.toMatchObject({ errno: 30015 });
    await node2.end();
  }, 60_000);

  it('generators started at once on three nodes each lease a worker id of their own', async () => {
    const { mysql2Executor, SnowflakeGenerator } = await import('@sheaf/core');
    const pools = cluster.nodes.map((node) =>
      mysql.createPool({ host: '127.0.0.1', port: node.port, user: 'root', database: 'shop', connectionLimit: 5 }),
    );
    try {
      // Shards 1-3 are the nodes': generators lease from 4 up.
      const starts = Array.from({ length: 15 }, (_, index) =>
        SnowflakeGenerator.start(mysql2Executor(pools[index % 3]!), { holder: `g${index}`, heartbeatMs: 500 }),
      );
      const generators = await Promise.all(starts);
      const workers = generators.map((generator) => generator.workerId);
      expect(new Set(workers).size).toBe(15);
      expect(workers.filter((worker) => worker >= 1 && worker <= 3)).toEqual([]);
      await Promise.all(generators.map((generator) => generator.close()));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 60_000);

  it('tickets: each node draws from a series of its own, and a TicketClient over the nodes takes all three', async () => {
    const { mysql2Executor, TicketClient } = await import('@sheaf/core');
    const admin = await connect(cluster.nodes[0]!, 'shop');
    await admin.query("call sheaf_shop.sheaf_create_ticket('orders', 1, 1)");
    await admin.end();
    await onEach('set global wsrep_auto_increment_control = OFF');
    await onEach('set global auto_increment_increment = 1, global auto_increment_offset = 1');
    const pools = cluster.nodes.map((node) =>
      mysql.createPool({ host: '127.0.0.1', port: node.port, user: 'root', database: 'shop', connectionLimit: 4 }),
    );
    try {
      const client = new TicketClient(
        pools.map((pool) => mysql2Executor(pool)),
        { name: 'orders' },
      );
      await client.check();
      const drawn = await Promise.all(Array.from({ length: 600 }, () => client.next()));
      const direct: bigint[] = [];
      await Promise.all(
        pools.flatMap((pool) =>
          Array.from({ length: 4 }, async () => {
            for (let i = 0; i < 50; i++) {
              const [rows] = await pool.query({
                sql: "select sheaf_next_ticket('orders') as t",
                supportBigNumbers: true,
                bigNumberStrings: true,
              });
              direct.push(BigInt((rows as { t: string }[])[0]!.t));
            }
          }),
        ),
      );
      const all = [...drawn.map(BigInt), ...direct];
      expect(new Set(all).size).toBe(all.length);
      // Each node's tickets are its own residue class modulo 8 (slot + 1, offset 1).
      expect(new Set(direct.map((ticket) => Number(ticket % 8n)))).toEqual(new Set([1, 2, 3]));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 60_000);

  it('a node killed mid-load rejoins: no id issued twice, no acknowledged row lost', async ({ onTestFailed }) => {
    // How the node left and rejoined (IST or SST, who donated, how long the eviction took).
    onTestFailed(() => {
      for (const node of cluster.nodes) console.error(`${node.name} error log, wsrep lines:\n${node.wsrepLog()}`);
    });
    const killed = cluster.nodes[2]!;
    let rejoined: Promise<void> = Promise.resolve();
    // The load goes on through the kill, the eviction and the restart's first seconds, not until the
    // node is synced: catching up with 12 writers took a joined node up to 40 s on a busy machine.
    const restarting = (async () => {
      await sleep(1_500);
      await killed.kill();
      rejoined = killed.start();
      // Its failure is reported where it is awaited, after the load.
      rejoined.catch(() => {});
      await sleep(3_000);
    })();
    const run = await load('shop', 4, restarting);
    await restarting;
    await rejoined;
    const again = await connect(killed, 'shop');
    const [inserted] = await again.query('insert into orders (node) values (?) returning id', [killed.name]);
    await again.end();
    const ids = [...run.ids.flat(), BigInt((inserted as { id: string }[])[0]!.id)];
    expect(new Set(ids).size).toBe(ids.length);
    expect(run.ids[2]!.length).toBeGreaterThan(0);
    // Rejoined, it issues ids of its own shard again.
    expect(shardOf(ids.at(-1)!)).toBe(3);
    expect(run.unanswered).toBe(0);
    const connection = await connect(cluster.nodes[0]!, 'shop');
    await connection.query('set session wsrep_sync_wait = 1');
    const [rows] = await connection.query('select id from orders');
    await connection.end();
    const stored = new Set((rows as { id: string }[]).map((row) => BigInt(row.id)));
    expect(ids.filter((id) => !stored.has(id))).toEqual([]);
    expect(stored.size).toBe((await rowCounts('shop'))[2]);
  }, 120_000);

  it('the layout stays changeable until a node issues an id, whatever the counter step', async () => {
    await onEach('set global wsrep_auto_increment_control = ON');
    await freshDatabase('atlas');
    const first = url(cluster.nodes[0]!, 'atlas');
    expect((await sheaf(['install', '--url', first, '--shard', '4'])).code).toBe(0);
    expect((await sheaf(['install', '--url', url(cluster.nodes[1]!, 'atlas'), '--shard', '5'])).code).toBe(0);
    // The probe's counter value moved by the cluster's step (3), not by one: no id was issued.
    const changed = await sheaf(['install', '--url', first, '--layout', 'js53']);
    expect(changed.stderr).toBe('');
    expect(changed.code).toBe(0);
    const second = await connect(cluster.nodes[1]!, 'atlas');
    await second.query('select sheaf_next_id()');
    await second.end();
    const locked = await sheaf(['install', '--url', first, '--layout', 'sheaf']);
    expect(locked.stderr).toMatch(/LAYOUT_LOCKED/);
  }, 60_000);

  it('doctor fails when two nodes share a name, and so a shard', async () => {
    const renamed = await mysql.createConnection({ host: '127.0.0.1', port: cluster.nodes[2]!.port, user: 'root' });
    await renamed.query("set global wsrep_node_name = 'node1'");
    try {
      const report = await doctor(cluster.nodes.map((node) => url(node, 'shop')));
      expect(report.code).not.toBe(0);
      const failed = report.report.databases.flatMap((db) => db.checks.filter((check) => check.status === 'fail'));
      expect(failed.map((check) => check.message).join('\n')).toMatch(/node1.*shard 1/);
    } finally {
      await renamed.query("set global wsrep_node_name = 'node3'");
      await renamed.end();
    }
  }, 60_000);

  it('doctor fails on a cluster whose sheaf predates one shard per node', async () => {
    await freshDatabase('legacy');
    const { install, mysql2Executor } = await import('@sheaf/core');
    const pool = mysql.createPool({
      host: '127.0.0.1',
      port: cluster.nodes[0]!.port,
      user: 'root',
      database: 'legacy',
    });
    try {
      await install(mysql2Executor(pool), { shard: 1, upTo: 14 });
    } finally {
      await pool.end();
    }
    const report = await doctor([url(cluster.nodes[0]!, 'legacy')]);
    expect(report.code).not.toBe(0);
    const failed = report.report.databases.flatMap((db) => db.checks.filter((check) => check.status === 'fail'));
    expect(failed.map((check) => check.message).join('\n')).toMatch(/wsrep_auto_increment_control/);
  }, 60_000);

  it('doctor fails two URLs that issue one shard: a Galera node and a standalone server', async () => {
    const name = `galera_fleet_${process.pid}`;
    const admin = await mysql.createConnection({ uri: mysqlUrl });
    await admin.query(`create database ${name}`);
    const standalone = withDatabase(mysqlUrl, name);
    try {
      expect((await sheaf(['install', '--url', standalone, '--shard', '2'])).code).toBe(0);
      // node2 issues shard 2: configured on the standalone server too.
      const pair = await doctor([url(cluster.nodes[1]!, 'shop'), standalone]);
      expect(pair.code).toBe(1);
      const shardChecks = pair.report.databases.map((db) => db.checks.find((check) => check.name === 'shard'));
      const fix = `give one of them a new shard: sheaf install --url ${standalone} --shard <N>`;
      expect(shardChecks[0]).toMatchObject({
        status: 'fail',
        message: `shard 2 is also configured on ${standalone}: their ids collide; ${fix}`,
      });
      expect(shardChecks[1]).toMatchObject({
        status: 'fail',
        message: `shard 2 is also issued on ${url(cluster.nodes[1]!, 'shop')}: their ids collide; ${fix}`,
      });
      // node1 given alone with it: shard 2 is still its cluster's, bound to node2.
      const other = await doctor([url(cluster.nodes[0]!, 'shop'), standalone]);
      expect(other.code).toBe(1);
      expect(other.report.idSpace?.checks.find((check) => check.name === 'shard 2')).toMatchObject({
        status: 'fail',
        message:
          `shard 2: configured on ${standalone} and bound to Galera node node2 (read in ` +
          `${url(cluster.nodes[0]!, 'shop')}): their ids collide`,
      });
    } finally {
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`drop database if exists sheaf_${name}`);
      await admin.end();
    }
  }, 60_000);
});
