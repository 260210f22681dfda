import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './scratch-cluster.js';

/**
 * A throw-away MariaDB server on a free port with its data in a temp dir, for tests that crash or
 * stop a server: never the shared one. Made with the machine's mariadb-install-db and mariadbd;
 * when we are root the server runs as user `mysql` (mariadbd refuses to run as root).
 */
export interface ScratchMariadb {
  /** `mysql://root@127.0.0.1:<port>/sheaf`: a database made at creation. */
  readonly url: string;
  /** Kills mariadbd with SIGKILL (no shutdown, no log flush beyond what commits forced); resolves once it is gone. */
  crash(): Promise<void>;
  /** Starts the server (again) and waits until it answers. */
  start(): Promise<void>;
  /** The server's error log so far, every start and recovery in it. */
  errorLog(): string;
  destroy(): void;
}

const binaries = ['mariadbd', 'mariadb-install-db'] as const;

/** Why no scratch server can be made here, or undefined when one can. */
export function mariadbMissing(): string | undefined {
  const missing = binaries.filter((name) => which(name) === undefined);
  return missing.length > 0 ? `${missing.join(' and ')} not installed` : undefined;
}

function which(name: string): string | undefined {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/usr/local/mysql/bin']) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * `serverOptions` are extra mariadbd options (`--innodb-flush-log-at-trx-commit=0` to show that a
 * crash test notices lost durability). The once-a-second background flush of the log is stretched to
 * 45 minutes, so the log reaches the disk at commits and at InnoDB's own checkpoints only (one
 * follows a start, as it resizes the log mariadb-install-db made, or a recovery).
 */
export async function createScratchMariadb(serverOptions: readonly string[] = []): Promise<ScratchMariadb> {
  const reason = mariadbMissing();
  if (reason) throw new Error(`no scratch MariaDB: ${reason}`);
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-mariadb-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'mariadb.sock');
  const errorLog = join(dir, 'error.log');
  const port = await freePort();
  const user = root ? ['--user=mysql'] : [];
  // A temporary directory of its own: at start-up mariadbd deletes every #sql* file in its tmpdir,
  // and in the shared /tmp those are the shared server's internal temporary tables, in use.
  const temp = join(dir, 'tmp');
  mkdirSync(temp);
  if (root) {
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'mysql']).toString());
    const gid = Number(execFileSync('id', ['-g', 'mysql']).toString());
    chownSync(dir, uid, gid);
    chownSync(temp, uid, gid);
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
      ...user,
    ],
    { stdio: 'pipe', timeout: 120_000 },
  );
  const options = [
    '--no-defaults',
    `--datadir=${data}`,
    `--tmpdir=${temp}`,
    `--socket=${socket}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--pid-file=${join(dir, 'mariadb.pid')}`,
    `--log-error=${errorLog}`,
    // A scratch server: no accounts to manage. Root over TCP gets in without a password.
    '--skip-grant-tables',
    '--skip-name-resolve',
    '--innodb-buffer-pool-size=64M',
    '--innodb-log-file-size=64M',
    '--innodb-flush-log-at-trx-commit=1',
    '--innodb-flush-log-at-timeout=2700',
    // Persistent statistics are written by a background transaction whose commit flushes the log.
    '--innodb-stats-auto-recalc=OFF',
    ...user,
    ...serverOptions,
  ];
  let server: ChildProcess | undefined;
  const url = `mysql://root@127.0.0.1:${port}/sheaf`;
  const start = async () => {
    server = spawn(which('mariadbd')!, options, { stdio: 'ignore', detached: true });
    server.unref();
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        await connection.query('create database if not exists sheaf');
        await connection.end();
        return;
      } catch (error) {
        if (Date.now() > deadline || server.exitCode !== null) {
          const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '';
          throw new Error(`scratch MariaDB did not start: ${String(error)}\n${log.slice(-2000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  await start();
  // Resolves when the process has exited: a restart must not find the old server holding its files.
  const kill = async () => {
    const running = server;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  return {
    url,
    crash: kill,
    start,
    errorLog: () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''),
    destroy() {
      server?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
