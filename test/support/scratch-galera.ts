import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './scratch-cluster.js';

/**
 * A throw-away Galera cluster of MariaDB on this machine: nodes on free ports with their data in a
 * temp dir, Debian's galera-4 as the provider, rsync state transfers, nodes running as user `mysql`
 * when we are root (mariadbd refuses to run as root). Never the shared server.
 */
export interface ScratchGalera {
  readonly nodes: readonly GaleraNode[];
  destroy(): void;
}

export interface GaleraNode {
  /** Its `wsrep_node_name`: node1, node2, … */
  readonly name: string;
  /** `mysql://root@127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  /** SIGKILL; resolves once the process is gone and every other running node has dropped it. */
  kill(): Promise<void>;
  /**
   * Starts it again from its own data, joining the others, and waits until it is synced. It first
   * recovers its last committed position, as mariadbd-safe does, so that a donor can send it the
   * missed write sets (IST) instead of a copy of its whole data (SST).
   */
  start(): Promise<void>;
  /** Its error log's lines about state transfers, membership and wsrep state changes. */
  wsrepLog(): string;
}

const provider = '/usr/lib/galera/libgalera_smm.so';
/** Error-log lines that tell how a node left, joined and got its state. */
const wsrepLine =
  /WSREP_SST|SST|IST|[Dd]onor|JOINER|JOINED|SYNCED|DESYNCED|Recovered position|initial position|view\(view_id|suspect|inactive|evict|Quorum|flow control|\[ERROR\]|\[Warning\] WSREP/;
const binaryDirs = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];

function which(name: string): string | undefined {
  return binaryDirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

/** Why no scratch Galera cluster can be made here, or undefined when one can. */
export function galeraMissing(): string | undefined {
  if (!existsSync(provider))
    return `${provider} is absent (apt-get install galera-4; scripts/services.sh does it as root)`;
  const missing = ['mariadbd', 'mariadb-install-db', 'rsync'].filter((name) => which(name) === undefined);
  return missing.length > 0 ? `${missing.join(' and ')} not installed` : undefined;
}

/**
 * Starts `size` nodes (the first bootstraps the cluster, the others join it by state transfer) and
 * resolves once all are synced. `serverOptions` go to every node.
 */
export async function createScratchGalera(size = 3, serverOptions: readonly string[] = []): Promise<ScratchGalera> {
  const reason = galeraMissing();
  if (reason) throw new Error(`no scratch Galera: ${reason}`);
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-galera-'));
  const owner = root
    ? {
        uid: Number(execFileSync('id', ['-u', 'mysql']).toString()),
        gid: Number(execFileSync('id', ['-g', 'mysql']).toString()),
      }
    : undefined;
  if (owner) {
    chmodSync(dir, 0o755);
    chownSync(dir, owner.uid, owner.gid);
  }
  const ports = [];
  for (let i = 0; i < size; i++) {
    ports.push({ sql: await freePort(), group: await freePort(), ist: await freePort(), sst: await freePort() });
  }
  const members = ports.map((port) => `127.0.0.1:${port.group}`).join(',');
  const nodes = ports.map((port, index) => {
    const name = `node${index + 1}`;
    const home = join(dir, name);
    const data = join(home, 'data');
    // Its own: at start-up mariadbd deletes every #sql* file in its tmpdir, and in the shared /tmp
    // those are the shared server's internal temporary tables, in use.
    const temp = join(home, 'tmp');
    const errorLog = join(home, 'error.log');
    let server: ChildProcess | undefined;
    const options = (bootstrap: boolean) => [
      '--no-defaults',
      `--datadir=${data}`,
      `--tmpdir=${temp}`,
      `--socket=${join(home, 'mariadb.sock')}`,
      `--port=${port.sql}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${join(home, 'mariadb.pid')}`,
      `--log-error=${errorLog}`,
      // Grant tables on (unlike the scratch single server): a routine's definer must exist on every
      // node that applies its CREATE. root@127.0.0.1 has an empty password after mariadb-install-db.
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=48M',
      // What Galera needs of every node.
      '--binlog-format=ROW',
      '--innodb-autoinc-lock-mode=2',
      '--wsrep-on=ON',
      `--wsrep-provider=${provider}`,
      `--wsrep-cluster-address=gcomm://${bootstrap ? '' : members}`,
      '--wsrep-cluster-name=sheaf-scratch',
      `--wsrep-node-name=${name}`,
      `--wsrep-node-address=127.0.0.1:${port.group}`,
      `--wsrep-node-incoming-address=127.0.0.1:${port.sql}`,
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${port.group};ist.recv_addr=127.0.0.1:${port.ist};gcache.size=32M`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${port.sst}`,
      ...(root ? ['--user=mysql'] : []),
      ...serverOptions,
    ];
    const synced = async (deadline: number) => {
      for (;;) {
        try {
          const connection = await mysql.createConnection({ host: '127.0.0.1', port: port.sql, user: 'root' });
          try {
            const [rows] = await connection.query("show status like 'wsrep_local_state_comment'");
            if ((rows as { Value: string }[])[0]?.Value === 'Synced') return;
          } finally {
            await connection.end();
          }
        } catch (error) {
          if (Date.now() > deadline || server?.exitCode !== null) {
            const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '';
            throw new Error(`Galera ${name} did not start: ${String(error)}\n${log.slice(-2000)}`);
          }
        }
        if (Date.now() > deadline) throw new Error(`Galera ${name} did not sync within 90 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const logText = () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '');
    // After a crash grastate.dat holds no position (seqno -1) and mariadbd does not ask InnoDB for
    // one: without it the node joins as a blank one and gets a full SST, which blocks its donor.
    const recoveredPosition = () => {
      const before = logText().length;
      execFileSync(
        which('mariadbd')!,
        [...options(false), '--wsrep-recover', `--pid-file=${join(home, 'recover.pid')}`],
        {
          stdio: 'ignore',
          timeout: 120_000,
        },
      );
      const position = /WSREP: Recovered position: ?(\S+)/.exec(logText().slice(before))?.[1];
      if (position === undefined)
        throw new Error(`Galera ${name}: mariadbd --wsrep-recover printed no position in ${errorLog}`);
      return position;
    };
    const launch = async (bootstrap: boolean, extra: readonly string[] = []) => {
      server = spawn(which('mariadbd')!, [...options(bootstrap), ...extra], { stdio: 'ignore', detached: true });
      server.unref();
      await synced(Date.now() + 90_000);
    };
    const node: GaleraNode & {
      init(): void;
      launch(bootstrap: boolean): Promise<void>;
      running(): boolean;
      stop(): void;
    } = {
      name,
      url: `mysql://root@127.0.0.1:${port.sql}/`,
      port: port.sql,
      init() {
        mkdirSync(home);
        mkdirSync(temp);
        if (owner) {
          chownSync(home, owner.uid, owner.gid);
          chownSync(temp, owner.uid, owner.gid);
        }
        execFileSync(
          which('mariadb-install-db')!,
          [
            '--no-defaults',
            `--datadir=${data}`,
            `--tmpdir=${temp}`,
            '--auth-root-authentication-method=normal',
            '--skip-test-db',
            '--skip-name-resolve',
            ...(root ? ['--user=mysql'] : []),
          ],
          { stdio: 'pipe', timeout: 120_000 },
        );
      },
      launch,
      start: () => launch(false, [`--wsrep-start-position=${recoveredPosition()}`]),
      running: () => server !== undefined && server.exitCode === null && server.signalCode === null,
      async kill() {
        const running = server;
        if (running === undefined || !node.running()) return;
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGKILL');
        await exited;
        // The peers notice only after evs.suspect_timeout. A node started again before that joins in
        // the middle of their membership change, which can take them through more view changes, even
        // a non-primary one, while their commits wait.
        await evicted(Date.now() + 60_000);
      },
      wsrepLog: () =>
        logText()
          .split('\n')
          .filter((line) => wsrepLine.test(line))
          .join('\n'),
      stop() {
        server?.kill('SIGKILL');
      },
    };
    return node;
  });
  // Resolves once each running node counts only the running nodes as members.
  const evicted = async (deadline: number) => {
    const running = nodes.filter((node) => node.running());
    for (const node of running) {
      for (;;) {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root' });
        try {
          const [rows] = await connection.query("show status like 'wsrep_cluster_size'");
          if (Number((rows as { Value: string }[])[0]?.Value) === running.length) break;
        } finally {
          await connection.end();
        }
        if (Date.now() > deadline) throw new Error(`Galera ${node.name} still counts a killed node after 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  try {
    // Each joiner's data is replaced by the first node's in the state transfer, but mariadbd needs
    // a data directory to start with.
    for (const node of nodes) node.init();
    await nodes[0]!.launch(true);
    for (const node of nodes.slice(1)) await node.launch(false);
  } catch (error) {
    for (const node of nodes) node.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    nodes,
    destroy() {
      for (const node of nodes) node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
