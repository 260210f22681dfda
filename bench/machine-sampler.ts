// One sample of the work on this machine that is not the bench's: every runnable or uninterruptible
// thread (what the load average counts), less the bench's own process tree, the kernel's threads and
// the bench's database servers serving the bench. Linux only (/proc).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { hostPort, type LoadSample, parseSocketPorts, parseTaskStat, type TaskStat } from './machine-load.js';

/** The servers the bench talks to, as URLs (the suites' SHEAF_PG_URL and SHEAF_MYSQL_URL). */
export interface ServerUrls {
  readonly postgres: string;
  readonly mysql: string;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process ended between listing and reading
  }
};
const list = (path: string) => {
  try {
    return readdirSync(path).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
};

/** A thread that counts in the load average, with its process. */
interface Loading {
  readonly process: TaskStat;
  readonly tid: number;
}

/** Every process (its main thread's stat) and the threads that count in the load average. */
function tasks(): { processes: Map<number, TaskStat>; loading: Loading[] } {
  const processes = new Map<number, TaskStat>();
  const loading: Loading[] = [];
  for (const pid of list('/proc')) {
    const main = parseTaskStat(read(`/proc/${pid}/stat`));
    if (!main) continue;
    processes.set(main.pid, main);
    for (const tid of list(`/proc/${pid}/task`)) {
      const thread = parseTaskStat(read(`/proc/${pid}/task/${tid}/stat`));
      if (thread && (thread.state === 'R' || thread.state === 'D')) loading.push({ process: main, tid: thread.pid });
    }
  }
  return { processes, loading };
}

const descends = (pid: number, root: number, processes: Map<number, TaskStat>) => {
  for (let p: number | undefined = pid; p && p > 1; p = processes.get(p)?.ppid) if (p === root) return true;
  return false;
};

/** The local TCP ports held by the bench's processes: what its database sessions connect from. */
function benchPorts(processes: Map<number, TaskStat>): Set<number> {
  const inodes = new Map([...parseSocketPorts(read('/proc/net/tcp')), ...parseSocketPorts(read('/proc/net/tcp6'))]);
  const ports = new Set<number>();
  for (const pid of processes.keys()) {
    if (!descends(pid, process.pid, processes)) continue;
    for (const fd of list(`/proc/${pid}/fd`)) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const port = inodes.get(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '');
      if (port !== undefined) ports.add(port);
    }
  }
  return ports;
}

/** Samples the machine; keeps one connection to each server that answers. */
export class MachineSampler {
  private postgres?: { client: pg.Client; postmaster: number };
  private mariadb?: { connection: mysql.Connection; pid: number };

  constructor(private readonly urls: ServerUrls) {}

  /** The sample of now. Servers that do not answer are left out: their threads count as other work. */
  async sample(): Promise<LoadSample> {
    const at = Date.now();
    const { processes, loading } = tasks();
    await this.connect();
    const foreign: Record<string, number> = {};
    const count = (name: string, n = 1) => {
      if (n > 0) foreign[name] = (foreign[name] ?? 0) + n;
    };
    let ports: Set<number> | undefined;
    const ours = () => (ports ??= benchPorts(processes));
    const pgBackends: number[] = [];
    const mariadbThreads: number[] = [];
    for (const { process: task, tid } of loading) {
      if (task.pid === 2 || task.ppid === 2 || descends(task.pid, process.pid, processes)) continue;
      if (task.pid === this.mariadb?.pid) mariadbThreads.push(tid);
      else if (task.ppid === this.postgres?.postmaster) pgBackends.push(task.pid);
      else if (task.pid !== this.postgres?.postmaster) count(task.comm);
    }
    if (pgBackends.length > 0) count('postgres (other sessions)', await this.pgForeign(pgBackends, ours()));
    if (mariadbThreads.length > 0)
      count('mariadbd (other sessions)', await this.mariadbForeign(mariadbThreads, ours()));
    return { at, foreign };
  }

  async close(): Promise<void> {
    await this.postgres?.client.end().catch(() => undefined);
    await this.mariadb?.connection.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (!this.postgres) {
      const client = new pg.Client({
        connectionString: this.urls.postgres,
        connectionTimeoutMillis: 2000,
        query_timeout: 2000,
      });
      try {
        await client.connect();
        client.on('error', () => (this.postgres = undefined));
        const [row] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
        const postmaster = parseTaskStat(read(`/proc/${row?.pid}/stat`))?.ppid;
        if (postmaster) this.postgres = { client, postmaster };
        else await client.end();
      } catch {
        await client.end().catch(() => undefined);
      }
    }
    if (!this.mariadb) {
      try {
        const connection = await mysql.createConnection({ uri: this.urls.mysql, connectTimeout: 2000 });
        connection.on('error', () => (this.mariadb = undefined));
        const [[row]] = await connection.query<mysql.RowDataPacket[]>('select @@pid_file as file');
        this.mariadb = { connection, pid: Number(read(String(row?.file)).trim()) };
      } catch {
        this.mariadb = undefined;
      }
    }
  }

  /**
   * Of PostgreSQL's busy children, the client backends (and their parallel workers) whose session
   * does not come from a bench port. Background processes (checkpointer, autovacuum…) count as the
   * bench's: its writes are what they work on.
   */
  private async pgForeign(pids: readonly number[], ports: Set<number>): Promise<number> {
    const result = await this.postgres?.client
      .query<{ pid: number; port: number | null }>(
        `select a.pid, l.client_port as port from pg_stat_activity a
           join pg_stat_activity l on l.pid = coalesce(a.leader_pid, a.pid)
          where a.pid = any($1) and l.backend_type = 'client backend'`,
        [pids],
      )
      .catch(() => undefined);
    if (!result) return pids.length; // in doubt, other work: a run judges only what it could tell apart
    return result.rows.filter((row) => row.port === null || !ports.has(row.port)).length;
  }

  /**
   * Of MariaDB's busy threads, those serving a session that does not come from a bench port (the
   * processlist's `tid` is the thread's id in /proc, one thread per connection). Threads with no
   * session (InnoDB's purge, page cleaner…) count as the bench's, as PostgreSQL's background ones do.
   */
  private async mariadbForeign(tids: readonly number[], ports: Set<number>): Promise<number> {
    const rows = await this.mariadb?.connection
      .query<mysql.RowDataPacket[]>({
        sql: 'select host from information_schema.processlist where tid in (?)',
        values: [tids],
        timeout: 2000,
      })
      .then(([found]) => found)
      .catch(() => undefined);
    if (!rows) return tids.length;
    return rows.filter((row) => {
      const port = hostPort(row.host as string | null);
      return port === undefined || !ports.has(port);
    }).length;
  }
}
