import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SheafError } from '@sheaf/core';
import { type Env, findProgram, isExecutable, runProgram } from './programs.js';

/** What a PostgreSQL installation's `pg_config` reports, as far as building an extension needs it. */
export interface PgConfig {
  /** The pg_config that was asked. */
  readonly path: string;
  /** `15.20` from `PostgreSQL 15.20 (Debian 15.20-0+deb12u1)`. */
  readonly version: string;
  readonly major: number;
  /** The makefile PGXS includes; empty when pg_config reports none. */
  readonly pgxs: string;
  /** Where `postgres.h` should be. */
  readonly includedirServer: string;
  /** Where the server loads extension libraries from, and its share directory. */
  readonly pkglibdir: string;
  readonly sharedir: string;
  /** The C compiler the server was built with (the first word of `pg_config --cc`). */
  readonly cc: string;
}

/** Where packaged servers keep their pg_config: Debian/Ubuntu (apt.postgresql.org too), PGDG RPMs. */
const packaged = [
  { dir: '/usr/lib/postgresql', entry: /^(\d+(?:\.\d+)?)$/ },
  { dir: '/usr', entry: /^pgsql-(\d+(?:\.\d+)?)$/ },
];

/**
 * The pg_config to build with: `--pg-config` (a path or a name on PATH), else `PG_CONFIG` (as PGXS
 * reads it), else `pg_config` on PATH, else the newest packaged server's. Undefined when none is found.
 */
export function locatePgConfig(given: string | undefined, env: Env): string | undefined {
  const [source, name] = given !== undefined ? ['--pg-config', given] : ['PG_CONFIG', env.PG_CONFIG];
  if (name !== undefined && name !== '') {
    const found = findProgram(name, env);
    if (found) return found;
    const what = existsSync(name)
      ? 'is not an executable file'
      : name.includes('/')
        ? 'does not exist'
        : 'is not on PATH';
    throw new SheafError(
      'INVALID_ARGUMENT',
      `${source} ${name} ${what}: give the pg_config of the server's installation`,
      {
        details: { [source === '--pg-config' ? 'pgConfig' : 'PG_CONFIG']: name },
      },
    );
  }
  return findProgram('pg_config', env) ?? newestPackaged();
}

function newestPackaged(): string | undefined {
  const found: { version: number; path: string }[] = [];
  for (const { dir, entry } of packaged) {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const version = entry.exec(name)?.[1];
      const path = join(dir, name, 'bin', 'pg_config');
      if (version !== undefined && isExecutable(path)) found.push({ version: Number(version), path });
    }
  }
  return found.sort((a, b) => a.version - b.version).at(-1)?.path;
}

/** Asks `path` everything at once (`pg_config --version --pgxs …` prints one line per flag). */
export async function readPgConfig(path: string, env: Env): Promise<PgConfig> {
  const flags = ['--version', '--pgxs', '--includedir-server', '--pkglibdir', '--sharedir', '--cc'];
  const run = await runProgram(path, flags, env);
  const lines = run.output.split('\n');
  const version = /PostgreSQL (\d+)(\.\d+)?/.exec(lines[0] ?? '');
  if (run.status !== 0 || !version || lines.length < flags.length) {
    throw new SheafError('NATIVE_UNAVAILABLE', `${path} does not answer as a pg_config: ${firstLine(run.output)}`, {
      details: { pgConfig: path, status: run.status },
    });
  }
  const [, pgxs = '', includedirServer = '', pkglibdir = '', sharedir = '', cc = ''] = lines.map((line) => line.trim());
  return {
    path,
    version: `${version[1]}${version[2] ?? ''}`,
    major: Number(version[1]),
    pgxs,
    includedirServer,
    pkglibdir,
    sharedir,
    cc: cc.split(/\s+/)[0] ?? '',
  };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] || '(no output)';
}
