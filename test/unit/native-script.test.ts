// scripts/native.sh runs before every `npm test` and `.ci/run`: on a machine that cannot build the
// extension it must say why in one line and exit 0, never fail the run. Each case points it at a
// pg_config of its own that describes an incomplete installation (PG_CONFIG is never installed for).
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/native.sh', import.meta.url));

let dir: string;

/** A pg_config answering `answers` (flag -> line); any other flag fails as an unknown option. */
async function fakePgConfig(name: string, answers: Record<string, string>): Promise<string> {
  const cases = Object.entries(answers)
    .map(([flag, line]) => `  ${flag}) echo '${line}' ;;`)
    .join('\n');
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\ncase "$1" in\n${cases}\n  *) exit 1 ;;\nesac\n`);
  await chmod(path, 0o755);
  return path;
}

function run(pgConfig: string): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile('bash', [script], { env: { ...process.env, PG_CONFIG: pgConfig } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr, stdout });
    });
  });
}

describe('scripts/native.sh on a machine that cannot build sheaf_native', () => {
  let pgxs: string;
  let headers: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sheaf-native-script-'));
    pgxs = join(dir, 'pgxs.mk');
    await writeFile(pgxs, '');
    headers = join(dir, 'server');
    await mkdir(headers);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('skips with exit 0 and one line naming the headers when PGXS is there but postgres.h is not', async () => {
    const pgConfig = await fakePgConfig('no-headers', { '--pgxs': pgxs, '--includedir-server': headers });
    const result = await run(pgConfig);
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      `native: no server headers (${headers}/postgres.h) for PG_CONFIG=${pgConfig} (the native tests are skipped; everything else runs on PL/pgSQL)`,
    ]);
  });

  it('skips naming PGXS when pg_config reports none', async () => {
    const pgConfig = await fakePgConfig('no-pgxs', { '--includedir-server': headers });
    const result = await run(pgConfig);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`native: no PGXS (not reported by ${pgConfig}) for PG_CONFIG=${pgConfig}`);
  });

  it('skips naming the compiler when the headers are there but the compiler is not', async () => {
    const complete = join(dir, 'complete');
    await mkdir(complete);
    await writeFile(join(complete, 'postgres.h'), '');
    const pgConfig = await fakePgConfig('no-cc', {
      '--pgxs': pgxs,
      '--includedir-server': complete,
      '--cc': '/nonexistent/gcc -std=gnu99',
    });
    const result = await run(pgConfig);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`the C compiler ${pgConfig} names (/nonexistent/gcc) is not installed`);
  });

  it('skips when PG_CONFIG names no executable', async () => {
    const result = await run(join(dir, 'absent-pg-config'));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('is not an executable pg_config');
  });
});
