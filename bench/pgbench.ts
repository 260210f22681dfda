import { execFileSync } from 'node:child_process';
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
}

/**
 * Runs pgbench (the C client shipped with PostgreSQL: no JavaScript in the measured path) with a
 * custom script and returns transactions per second.
 */
export function pgbench({ url, script, clients, seconds }: PgbenchRun): number {
  const bin = postgresBinDir();
  if (!bin) throw new Error('pgbench not found under /usr/lib/postgresql/*/bin');
  const parsed = new URL(url);
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-bench-'));
  try {
    const file = join(dir, 'script.sql');
    writeFileSync(file, `${script}\n`);
    const output = execFileSync(
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
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const match = /tps = ([\d.]+)/.exec(output);
    if (!match) throw new Error(`pgbench printed no tps:\n${output}`);
    return Number(match[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
