import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { SheafError } from '@sheaf/core';
import type { PgConfig } from './pg-config.js';
import { type Env, findProgram, runProgram } from './programs.js';

/** The oldest server the native path runs on (its wrappers are `begin atomic` bodies). */
export const nativeMinimumMajor = 14;

/** What a build needs beyond pg_config: GNU make and the server's C compiler, found. */
export interface Toolchain {
  readonly make: string;
  readonly cc: string;
}

/**
 * Checks, before anything is built, everything a build and install against `config` needs, and
 * refuses with NATIVE_UNAVAILABLE naming the first thing missing and how to get it.
 */
export async function checkPrerequisites(config: PgConfig, env: Env): Promise<Toolchain> {
  const refuse = (message: string, details: Record<string, unknown> = {}) => {
    throw new SheafError('NATIVE_UNAVAILABLE', `cannot build sheaf_native with ${config.path}: ${message}`, {
      details: { pgConfig: config.path, version: config.version, ...details },
    });
  };
  if (config.major < nativeMinimumMajor) {
    refuse(
      `it is PostgreSQL ${config.version}, and the native path needs ${nativeMinimumMajor} or later (PL/pgSQL serves there)`,
    );
  }
  if (config.pgxs === '' || !existsSync(config.pgxs)) {
    refuse(`no PGXS (${config.pgxs || 'not reported'}): ${devPackage(config.major)}`, { pgxs: config.pgxs });
  }
  const header = join(config.includedirServer, 'postgres.h');
  if (config.includedirServer === '' || !existsSync(header)) {
    refuse(`no server headers (${header}): ${devPackage(config.major)}`, { includedirServer: config.includedirServer });
  }
  const make = await gnuMake(env);
  if (typeof make !== 'string') refuse(make.missing);
  const cc = config.cc === '' ? undefined : findProgram(config.cc, env);
  if (!cc) {
    refuse(
      `the C compiler the server was built with (${config.cc || 'none reported'}) is not installed${compilerHint()}`,
      {
        cc: config.cc,
      },
    );
  }
  for (const dir of [config.pkglibdir, join(config.sharedir, 'extension')]) {
    if (!writable(dir)) {
      refuse(`cannot write ${dir}: run it as root (sudo) or as the owner of the PostgreSQL installation`, { dir });
    }
  }
  return { make: make as string, cc: cc as string };
}

/** What installs PGXS and the headers of `major`, said for the system we run on. */
export function devPackage(major: number | string): string {
  if (existsSync('/etc/debian_version'))
    return `install postgresql-server-dev-${major} (apt-get install postgresql-server-dev-${major})`;
  if (existsSync('/etc/redhat-release')) return `install postgresql${major}-devel (PGDG) or postgresql-server-devel`;
  if (existsSync('/etc/alpine-release')) return `install postgresql${major}-dev (apk add postgresql${major}-dev)`;
  return `install the server development files (PGXS and headers) of PostgreSQL ${major}, or give --pg-config of an installation that has them`;
}

function compilerHint(): string {
  if (existsSync('/etc/debian_version')) return ' (apt-get install build-essential)';
  if (existsSync('/etc/redhat-release')) return ' (dnf install gcc)';
  return '';
}

// PGXS is written for GNU make, which BSDs install as gmake.
async function gnuMake(env: Env): Promise<string | { missing: string }> {
  const found = ['make', 'gmake'].map((name) => findProgram(name, env)).filter((path) => path !== undefined);
  for (const path of found) {
    if ((await runProgram(path, ['--version'], env)).output.startsWith('GNU Make')) return path;
  }
  if (found.length > 0) return { missing: `${found.join(' and ')} is not GNU make, which PGXS needs: install gmake` };
  return { missing: `make is not installed${compilerHint()}` };
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
