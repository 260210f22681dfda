import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SheafError } from '@sheaf/core';

/**
 * The C sources of sheaf_native shipped in @sheaf/cli (copied from native/postgres by the build),
 * beside both src/ and dist/. Refuses when they are missing: a checkout that was never built.
 */
export function nativeSourceDir(): string {
  const dir = fileURLToPath(new URL('../../native/postgres', import.meta.url));
  if (!existsSync(`${dir}/Makefile`)) {
    throw new SheafError(
      'NATIVE_UNAVAILABLE',
      `the sources of sheaf_native are missing from @sheaf/cli (${dir}): in a checkout, run npm run build`,
      { details: { dir } },
    );
  }
  return dir;
}
