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
  readonly url: string;
  /** Stops every process of the cluster with SIGKILL: no shutdown, no checkpoint, no WAL flush. */
  crash(): void;
  start(): void;
  destroy(): void;
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

export async function createScratchCluster(): Promise<ScratchCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-cluster-'));
  const data = join(dir, 'data');
  const port = await freePort();
  if (root) {
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const command = root ? 'runuser' : join(bin, tool);
    const fullArgs = root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, fullArgs, { stdio: 'pipe', timeout: 60_000 });
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    crash() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
        .toString()
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0);
      execFileSync('kill', ['-9', String(postmaster), ...children.map(String)]);
      // The kernel reaps them asynchronously; a restart must not find the old postmaster alive.
      for (let i = 0; i < 100 && isAlive(postmaster); i++) execFileSync('sleep', ['0.05']);
    },
    start,
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
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
