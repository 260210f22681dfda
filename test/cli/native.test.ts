// `sheaf native install` refusing before it builds anything: a pg_config that does not exist or
// lacks PGXS, headers, a supported version or make, and a build that fails. Fake pg_config scripts
// answer for an installation; the build itself, against a real one, is in test/outside (packed-app).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBuildUnavailable } from '../support/postgres-copy.js';
import { postgresBinDir } from '../support/scratch-cluster.js';
import { sheaf } from './run-sheaf.js';

const temp = mkdtempSync(join(tmpdir(), 'sheaf-native-cli-'));
const debian = existsSync('/etc/debian_version');
const realPgConfig = postgresBinDir() && join(postgresBinDir()!, 'pg_config');
const buildUnavailable = postgresBuildUnavailable();

/** A pg_config answering `answers` per flag, and the real one (if any) for the flags PGXS asks besides. */
function fakePgConfig(name: string, answers: Record<string, string>): string {
  const dir = join(temp, name);
  for (const sub of ['lib', 'share/extension']) mkdirSync(join(dir, sub), { recursive: true });
  const defaults = { '--pkglibdir': join(dir, 'lib'), '--sharedir': join(dir, 'share'), '--cc': 'gcc' };
  const cases = Object.entries({ ...defaults, ...answers }).map(([flag, value]) => `    ${flag}) echo '${value}' ;;`);
  const fallback = realPgConfig ? `${realPgConfig} "$flag"` : 'exit 1';
  const script = `#!/bin/sh\nfor flag in "$@"; do\n  case "$flag" in\n${cases.join('\n')}\n    *) ${fallback} ;;\n  esac\ndone\n`;
  const path = join(dir, 'pg_config');
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

const realAnswer = (flag: string) => (realPgConfig ? execFileSync(realPgConfig, [flag]).toString().trim() : '');

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('sheaf native install refuses, naming what is missing', () => {
  it('a --pg-config that does not exist or cannot run: INVALID_ARGUMENT, exit 1', async () => {
    const missing = await sheaf(['native', 'install', '--pg-config', join(temp, 'nowhere', 'pg_config')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `sheaf: --pg-config ${join(temp, 'nowhere', 'pg_config')} does not exist: give the pg_config of the server's installation (INVALID_ARGUMENT)\n`,
    );
    const plain = join(temp, 'not-executable');
    writeFileSync(plain, '');
    const notExecutable = await sheaf(['native', 'install', '--pg-config', plain]);
    expect(notExecutable.code).toBe(1);
    expect(notExecutable.stderr).toContain(`--pg-config ${plain} is not an executable file`);
    const fromEnv = await sheaf(['native', 'install'], { PG_CONFIG: 'pg_config_nowhere' });
    expect(fromEnv.stderr).toContain('PG_CONFIG pg_config_nowhere is not on PATH');
  });

  it('a PostgreSQL older than 14, no PGXS, no server headers: NATIVE_UNAVAILABLE naming the dev package', async () => {
    const old = fakePgConfig('old', { '--version': 'PostgreSQL 13.16' });
    const tooOld = await sheaf(['native', 'install', '--pg-config', old]);
    expect(tooOld.code).toBe(1);
    expect(tooOld.stderr).toBe(
      `sheaf: cannot build sheaf_native with ${old}: it is PostgreSQL 13.16, and the native path needs 14 or later (PL/pgSQL serves there) (NATIVE_UNAVAILABLE)\n`,
    );

    const noPgxs = fakePgConfig('no-pgxs', {
      '--version': 'PostgreSQL 16.4',
      '--pgxs': join(temp, 'no-pgxs', 'pgxs.mk'),
    });
    const withoutPgxs = await sheaf(['native', 'install', '--pg-config', noPgxs]);
    expect(withoutPgxs.code).toBe(1);
    expect(withoutPgxs.stderr).toContain(`no PGXS (${join(temp, 'no-pgxs', 'pgxs.mk')})`);
    expect(withoutPgxs.stderr).toContain('(NATIVE_UNAVAILABLE)');
    if (debian) expect(withoutPgxs.stderr).toContain('install postgresql-server-dev-16');

    const pgxs = join(temp, 'pgxs.mk');
    writeFileSync(pgxs, '');
    const headers = join(temp, 'no-headers', 'server');
    const noHeaders = fakePgConfig('no-headers', {
      '--version': 'PostgreSQL 17.2',
      '--pgxs': pgxs,
      '--includedir-server': headers,
    });
    const withoutHeaders = await sheaf(['native', 'install', '--pg-config', noHeaders]);
    expect(withoutHeaders.code).toBe(1);
    expect(withoutHeaders.stderr).toContain(`no server headers (${headers}/postgres.h)`);
    if (debian) expect(withoutHeaders.stderr).toContain('install postgresql-server-dev-17');
  });

  it('no make on PATH, and a C compiler that is not installed', async () => {
    const headers = join(temp, 'headers');
    mkdirSync(headers);
    writeFileSync(join(headers, 'postgres.h'), '');
    const pgxs = join(temp, 'pgxs.mk');
    writeFileSync(pgxs, '');
    const answers = { '--version': 'PostgreSQL 15.8', '--pgxs': pgxs, '--includedir-server': headers };
    const noMake = await sheaf(['native', 'install', '--pg-config', fakePgConfig('no-make', answers)], {
      PATH: join(temp, 'empty-path'),
    });
    expect(noMake.code).toBe(1);
    expect(noMake.stderr).toMatch(/: make is not installed.* \(NATIVE_UNAVAILABLE\)\n$/);

    const noCc = fakePgConfig('no-cc', { ...answers, '--cc': 'sheaf-no-such-cc -O2' });
    const withoutCc = await sheaf(['native', 'install', '--pg-config', noCc]);
    expect(withoutCc.code).toBe(1);
    expect(withoutCc.stderr).toContain('the C compiler the server was built with (sheaf-no-such-cc) is not installed');
  });

  const asNobody = process.getuid?.() === 0 && existsSync('/usr/sbin/runuser') ? undefined : 'needs root and runuser';
  (asNobody ? it.skip : it)(
    `the server's directories not writable: run it as root or as the owner${asNobody ? `: ${asNobody}` : ''}`,
    async () => {
      // As user nobody, a pg_config whose library directory belongs to root.
      const libdir = join(temp, 'root-owned-lib');
      mkdirSync(libdir);
      chmodSync(temp, 0o755);
      const pgxs = join(temp, 'pgxs.mk');
      const headers = join(temp, 'headers');
      mkdirSync(headers, { recursive: true });
      writeFileSync(join(headers, 'postgres.h'), '');
      writeFileSync(pgxs, '');
      const pgConfig = fakePgConfig('read-only', {
        '--version': 'PostgreSQL 15.8',
        '--pgxs': pgxs,
        '--includedir-server': headers,
        '--pkglibdir': libdir,
      });
      chmodSync(join(temp, 'read-only'), 0o755);
      const bin = fileURLToPath(new URL('../../packages/cli/bin/sheaf.js', import.meta.url));
      const run = spawnSync(
        'runuser',
        ['-u', 'nobody', '--', process.execPath, bin, 'native', 'install', '--pg-config', pgConfig],
        {
          encoding: 'utf8',
        },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `sheaf: cannot build sheaf_native with ${pgConfig}: cannot write ${libdir}: run it as root (sudo) or as the owner of the PostgreSQL installation (NATIVE_UNAVAILABLE)\n`,
      );
    },
  );

  it('usage: a missing or unknown action, options on sources (exit 2)', async () => {
    for (const args of [['native'], ['native', 'build'], ['native', 'sources', '--json']]) {
      const run = await sheaf(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Run "sheaf native --help" for usage.');
    }
  });
});

(buildUnavailable ? it.skip : it)(
  `a build that fails is NATIVE_BUILD_FAILED with the end of make's output, and installs nothing${buildUnavailable ? `: ${buildUnavailable}` : ''}`,
  async () => {
    // The real PGXS and headers, and a header forced into every compile through COPT, which PGXS
    // adds to CFLAGS from the environment.
    const broken = fakePgConfig('broken', {
      '--version': 'PostgreSQL 15.8',
      '--pgxs': realAnswer('--pgxs'),
      '--includedir-server': realAnswer('--includedir-server'),
    });
    const header = join(temp, 'broken.h');
    writeFileSync(header, '#error "sheaf test: broken header"\n');
    const run = await sheaf(['native', 'install', '--pg-config', broken], { COPT: `-include ${header}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^sheaf: make of sheaf_native for PostgreSQL 15\.8 failed \(exit 2\):\n/);
    expect(run.stderr).toContain('sheaf test: broken header');
    expect(run.stderr).toMatch(/\(NATIVE_BUILD_FAILED\)\n$/);
    expect(readdirSync(join(temp, 'broken', 'lib'))).toEqual([]);
    expect(readdirSync(join(temp, 'broken', 'share', 'extension'))).toEqual([]);
  },
);
