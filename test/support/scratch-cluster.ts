import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throw-away PostgreSQL cluster on a free port, for tests that crash or stop a server: never the
 * shared one. Made with the machine's initdb/pg_ctl (run as user postgres when we are root).
 */
export interface ScratchCluster {
  /** The database `postgres` of the cluster, as user postgres. */
  readonly url: string;
  readonly port: number;
  /** The directory of the server binaries the cluster runs. */
  readonly binDir: string;
  /** The data directory: a standby is made from it (scratch-standby.ts). */
  readonly dataDir: string;
  /** The server settings it was started with, which a standby of it repeats. */
  readonly settings: ServerSettings;
  /** The URL of another database of the cluster. */
  urlOf(database: string): string;
  /** The server log so far (pglogical writes its conflicts there). */
  log(): string;
  /**
   * Stops every process of the cluster with SIGKILL: no shutdown, no checkpoint, no WAL flush.
   * Returns at once; `start()` waits for the old postmaster to be gone.
   */
  crash(): void;
  start(): void;
  /** A clean shutdown (`pg_ctl stop -m fast`). */
  stop(): void;
  destroy(): void;
}

/** Server settings given on the command line, e.g. `{ wal_level: 'logical', max_replication_slots: 10 }`. */
export type ServerSettings = Readonly<Record<string, string | number | boolean>>;

export interface ScratchClusterOptions {
  /** Settings beside the defaults (fsync and synchronous_commit on, loopback only). */
  readonly settings?: ServerSettings;
  /** The server binaries to run (default: the newest under /usr/lib/postgresql). */
  readonly binDir?: string;
}

export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest && existsSync(join(root, newest, 'bin', 'initdb')) ? join(root, newest, 'bin') : undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function createScratchCluster(options: ScratchClusterOptions = {}): Promise<ScratchCluster> {
  const bin = options.binDir ?? requireBinDir();
  const dir = clusterDir();
  const cluster = clusterAt(bin, dir, await freePort(), options.settings ?? {});
  try {
    runAsPostgres(bin, 'initdb', ['-D', cluster.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    cluster.start();
  } catch (error) {
    cluster.destroy();
    throw error;
  }
  return cluster;
}

export function requireBinDir(): string {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  return bin;
}

/** A fresh temporary directory for one cluster, owned by postgres when we are root (the server refuses root). */
export function clusterDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-cluster-'));
  if (process.getuid?.() === 0) {
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Runs a server tool of `bin`, as user postgres when we are root; returns its stdout. */
export function runAsPostgres(bin: string, tool: string, args: readonly string[], timeout = 60_000): string {
  const root = process.getuid?.() === 0;
  const command = root ? 'runuser' : join(bin, tool);
  const fullArgs = root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : [...args];
  return execFileSync(command, fullArgs, { stdio: 'pipe', timeout }).toString();
}

/**
 * The handle of the cluster whose data directory is `<dir>/data`, served on `port` with its socket
 * and log in `dir`. Not started.
 */
export function clusterAt(bin: string, dir: string, port: number, settings: ServerSettings): ScratchCluster {
  const data = join(dir, 'data');
  const logFile = join(dir, 'log');
  const all: ServerSettings = {
    listen_addresses: '127.0.0.1',
    fsync: 'on',
    synchronous_commit: 'on',
    ...settings,
  };
  const options = [`-p ${port}`, `-k ${dir}`, ...Object.entries(all).map(([name, value]) => `-c ${name}=${value}`)];
  const urlOf = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let killed: number[] = [];
  // The killed processes stay zombies until init reaps them, which a container's init did 1.3 s
  // after each crash, and pg_ctl and a new postmaster take a zombie whose pid is in the lock files
  // for a live server. So start and stop wait until every killed process has exited (its shared
  // memory detached), then remove the postmaster's lock files, stale as after any crash. crash()
  // waits for nothing, so that a standby is promoted right after the kill.
  const buried = () => {
    if (killed.length === 0) return;
    for (let i = 0; i < 200 && killed.some(isRunning); i++) execFileSync('sleep', ['0.05']);
    for (const lock of [join(data, 'postmaster.pid'), join(dir, `.s.PGSQL.${port}.lock`)])
      rmSync(lock, { force: true });
    killed = [];
  };
  return {
    url: urlOf('postgres'),
    port,
    binDir: bin,
    dataDir: data,
    settings,
    urlOf,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    crash() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
        .toString()
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0);
      // A child listed above may have exited since (a backend whose client left, an autovacuum
      // worker): that one is already gone, the others must still die.
      for (const pid of [postmaster, ...children]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      }
      killed = [postmaster, ...children];
    },
    start() {
      buried();
      runAsPostgres(bin, 'pg_ctl', ['-D', data, '-o', options.join(' '), '-l', logFile, '-w', '-t', '60', 'start']);
    },
    stop() {
      runAsPostgres(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    destroy() {
      buried();
      try {
        runAsPostgres(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already down.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Alive and not a zombie (where /proc tells them apart; elsewhere a zombie counts as running). */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    // `<pid> (<name>) <state> …`: the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return true;
  }
}
