import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinDir } from '../test/support/scratch-cluster.js';

/** Options of one pgbench run. */
export interface PgbenchRun {
  /** The database URL (postgresql://user@host:port/db). */
  url: string;
  /** The custom script: one transaction of the benchmark. */
  script: string;
  clients: number;
  seconds: number;
  /** Server settings for every session of this run, as PGOPTIONS (e.g. `-c synchronous_commit=off`). */
  options?: string;
}

/** What one pgbench run measured. */
export interface PgbenchResult {
  tps: number;
  /** Why a client stopped early (e.g. a duplicate key): its rate counts only what ran before. */
  aborted?: string;
}

/**
 * Runs pgbench (the C client shipped with PostgreSQL: no JavaScript in the measured path) with a
 * custom script and returns transactions per second. A client aborted by an error (a generator
 * that collides, say) is reported, not thrown: that is a result of the benchmark.
 */
export function pgbench({ url, script, clients, seconds, options }: PgbenchRun): PgbenchResult {
  const bin = postgresBinDir();
  if (!bin) throw new Error('pgbench not found under /usr/lib/postgresql/*/bin');
  const parsed = new URL(url);
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-bench-'));
  try {
    const file = join(dir, 'script.sql');
    writeFileSync(file, `${script}\n`);
    const run = spawnSync(
      join(bin, 'pgbench'),
      [
        '-n',
        '-h',
        parsed.hostname,
        '-p',
        parsed.port || '5432',
        '-U',
        decodeURIComponent(parsed.username || 'postgres'),
        '-c',
        String(clients),
        '-j',
        String(Math.min(clients, 2)),
        '-T',
        String(seconds),
        '-f',
        file,
        parsed.pathname.slice(1),
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: options ? { ...process.env, PGOPTIONS: options } : process.env,
      },
    );
    const match = /tps = ([\d.]+)/.exec(run.stdout);
    if (!match) throw new Error(`pgbench printed no tps:\n${run.stdout}${run.stderr}`);
    if (run.status === 0) return { tps: Number(match[1]) };
    const error = /ERROR: {2}(.*)/.exec(run.stderr);
    if (!error) throw new Error(`pgbench failed:\n${run.stdout}${run.stderr}`);
    return { tps: Number(match[1]), aborted: error[1] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
