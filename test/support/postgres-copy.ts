import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { postgresBinDir } from './scratch-cluster.js';

/**
 * A private copy of the machine's PostgreSQL installation (binaries, libraries, share directory,
 * server headers) without sheaf_native: a server on which the extension was never installed, whose
 * directories a test may install into without touching the shared server's. PostgreSQL and its
 * pg_config find their directories relative to the binary, so the copy keeps the installation's
 * absolute paths under a temporary root.
 */
export interface PostgresCopy {
  readonly binDir: string;
  readonly pgConfig: string;
  /** The copy's root: every path the copy's pg_config reports starts with it. */
  readonly root: string;
  destroy(): void;
}

/** Why a build of sheaf_native against the machine's PostgreSQL cannot run here, or undefined. */
export function postgresBuildUnavailable(): string | undefined {
  const bin = postgresBinDir();
  if (!bin) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  const [pgxs, headers] = ask(join(bin, 'pg_config'), ['--pgxs', '--includedir-server']);
  if (!pgxs || !existsSync(pgxs)) return `no PGXS at ${pgxs} (the server's dev package, postgresql-server-dev-<major>)`;
  if (!headers || !existsSync(join(headers, 'postgres.h'))) return `no server headers at ${headers}/postgres.h`;
  const path = (process.env.PATH ?? '').split(delimiter);
  const [cc] = ask(join(bin, 'pg_config'), ['--cc']);
  for (const tool of ['make', cc?.split(' ')[0] ?? 'cc']) {
    if (!path.some((dir) => existsSync(join(dir, tool)))) return `${tool} is not installed`;
  }
  return undefined;
}

/** Copies the newest installation under /usr/lib/postgresql (see {@link postgresBuildUnavailable}). */
export function copyPostgres(): PostgresCopy {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const pgConfig = join(bin, 'pg_config');
  const dirs = ask(pgConfig, ['--bindir', '--pkglibdir', '--sharedir', '--includedir-server']);
  const root = mkdtempSync(join(tmpdir(), 'sheaf-postgres-'));
  // The server runs as user postgres when we are root: it must read the copy.
  chmodSync(root, 0o755);
  for (const dir of dirs) cpSync(dir, join(root, dir), { recursive: true });
  const [, pkglibdir, sharedir] = dirs.map((dir) => join(root, dir));
  for (const dir of [pkglibdir!, join(sharedir!, 'extension')]) {
    for (const file of readdirSync(dir)) {
      if (file.startsWith('sheaf_native')) rmSync(join(dir, file), { recursive: true });
    }
  }
  rmSync(join(pkglibdir!, 'bitcode', 'sheaf_native'), { recursive: true, force: true });
  return {
    binDir: join(root, bin),
    pgConfig: join(root, pgConfig),
    root,
    destroy: () => rmSync(root, { recursive: true, force: true }),
  };
}

function ask(pgConfig: string, flags: readonly string[]): string[] {
  return execFileSync(pgConfig, flags).toString().trim().split('\n');
}
