import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SheafError } from '@sheaf/core';
import type { PgConfig } from './pg-config.js';
import type { Toolchain } from './prerequisites.js';
import { type Env, runProgram } from './programs.js';
import { nativeSourceDir } from './sources.js';

/** What `make install` put where. */
export interface NativeInstall {
  readonly library: string;
  readonly extensionFiles: readonly string[];
}

/**
 * Builds the shipped sources against `config` in a temporary directory (the package's own folder
 * may be read-only, and stays free of build products), then installs them with `make install`.
 * with_llvm=no: no JIT bitcode, so no clang is needed. A failing make is NATIVE_BUILD_FAILED, with
 * make's output in `details.output`.
 */
export async function buildAndInstall(config: PgConfig, tools: Toolchain, env: Env): Promise<NativeInstall> {
  const sources = nativeSourceDir();
  const dir = await mkdtemp(join(tmpdir(), 'sheaf-native-'));
  try {
    await cp(sources, dir, { recursive: true });
    const args = [`PG_CONFIG=${config.path}`, 'with_llvm=no'];
    for (const step of [[], ['install']]) {
      const run = await runProgram(tools.make, [...step, ...args], env, dir);
      if (run.status !== 0) {
        const what = step.length === 0 ? 'make' : 'make install';
        throw new SheafError(
          'NATIVE_BUILD_FAILED',
          `${what} of sheaf_native for PostgreSQL ${config.version} failed (exit ${run.status}):\n${tail(run.output)}`,
          { details: { pgConfig: config.path, step: what, status: run.status, output: run.output } },
        );
      }
    }
    const built = await readdir(dir);
    const library = built.find((file) => /^sheaf_native\.(so|dylib|dll)$/.test(file)) ?? 'sheaf_native.so';
    const extensionFiles = (await readdir(sources)).filter((file) => /\.(control|sql)$/.test(file)).sort();
    return {
      library: join(config.pkglibdir, library),
      extensionFiles: extensionFiles.map((file) => join(config.sharedir, 'extension', file)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The last lines of make's output: the error is at the end. */
function tail(output: string): string {
  return output.trimEnd().split('\n').slice(-25).join('\n');
}
