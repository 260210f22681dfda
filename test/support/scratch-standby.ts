import { join } from 'node:path';
import pg from 'pg';
import { clusterAt, clusterDir, freePort, runAsPostgres, type ScratchCluster } from './scratch-cluster.js';

/**
 * An asynchronous streaming standby of a scratch cluster: its own data directory, port and log.
 * `stop()` it to cut it off from its primary (it keeps the WAL it has), `start()` it again.
 */
export interface ScratchStandby extends ScratchCluster {
  /** Waits until the standby has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
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
  const cluster = clusterAt(primary.binDir, dir, await freePort(), primary.settings);
  try {
    backUp(primary, dir);
    cluster.start();
  } catch (error) {
    cluster.destroy();
    throw error;
  }
  return {
    ...cluster,
    caughtUp: (timeoutMs = 30_000) => caughtUp(primary, cluster, timeoutMs),
    promote() {
      runAsPostgres(primary.binDir, 'pg_ctl', ['-D', cluster.dataDir, '-w', '-t', '60', 'promote']);
    },
  };
}

/** `pg_basebackup -R` of `primary` into `<dir>/data`: a standby's data directory, told where its primary is. */
function backUp(primary: ScratchCluster, dir: string): void {
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

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
