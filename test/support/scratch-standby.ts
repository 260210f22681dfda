import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { clusterAt, clusterDir, freePort, runAsPostgres, type ScratchCluster } from './scratch-cluster.js';

/** An asynchronous streaming standby of a scratch cluster: its own data directory, port and log. */
export interface ScratchStandby extends ScratchCluster {
  /** Waits until the standby has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /**
   * Stops (SIGSTOP) the standby's WAL receiver: WAL the primary writes from now on does not reach
   * it, as over a slow link. Returns the function that lets it run again (SIGCONT).
   */
  holdWal(): Promise<() => void>;
  /** `pg_ctl promote`: the standby becomes a primary, on the WAL it has. */
  promote(): void;
}

/**
 * Makes an asynchronous streaming standby of `primary` with `pg_basebackup -R` (as user postgres,
 * over the replication entry that initdb's trust pg_hba.conf has for 127.0.0.1) and starts it with
 * the primary's settings on a port of its own. Destroy it like any scratch cluster.
 */
export async function createStandby(primary: ScratchCluster): Promise<ScratchStandby> {
  const dir = clusterDir();
  runAsPostgres(primary.binDir, 'pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    join(dir, 'data'),
    '-X',
    'stream',
    '-R',
    // A spread checkpoint would pace itself over minutes.
    '--checkpoint=fast',
    '--no-sync',
  ]);
  const cluster = clusterAt(primary.binDir, dir, await freePort(), primary.settings);
  cluster.start();
  return {
    ...cluster,
    caughtUp: (timeoutMs = 30_000) => caughtUp(primary, cluster, timeoutMs),
    async holdWal() {
      const pid = await walReceiverPid(cluster);
      execFileSync('kill', ['-STOP', String(pid)]);
      return () => execFileSync('kill', ['-CONT', String(pid)]);
    },
    promote() {
      runAsPostgres(primary.binDir, 'pg_ctl', ['-D', cluster.dataDir, '-w', '-t', '60', 'promote']);
    },
  };
}

async function caughtUp(primary: ScratchCluster, standby: ScratchCluster, timeoutMs: number): Promise<void> {
  const [target] = await query<{ lsn: string }>(primary.url, 'select pg_current_wal_lsn()::text as lsn');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await query<{ done: boolean }>(
      standby.url,
      'select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as done',
      [target?.lsn],
    );
    if (row?.done) return;
    if (Date.now() > deadline) throw new Error(`the standby on port ${standby.port} did not replay ${target?.lsn}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function walReceiverPid(standby: ScratchCluster): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [row] = await query<{ pid: number }>(
      standby.url,
      "select pid from pg_stat_wal_receiver where status = 'streaming'",
    );
    if (row) return row.pid;
    if (Date.now() > deadline) throw new Error(`the standby on port ${standby.port} has no streaming WAL receiver`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
