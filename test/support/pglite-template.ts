import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The data directory of a freshly initialised PGlite, as a tar file (global setup writes it). */
    pgliteTemplate: string;
  }
}

/**
 * Writes the data directory of a new, empty PGlite to `path`. A PGlite created from it is the
 * same cluster as one that ran its own initdb, but for a smaller buffer pool; initdb takes 4-5 s of
 * WASM on this project's machines against under 1 s to unpack: the suite makes over a hundred.
 */
export async function writePgliteTemplate(path: string): Promise<void> {
  const db = await PGlite.create();
  try {
    // Every boot zeroes the whole buffer pool in WebAssembly: PGlite's default 128 MB took 0.35 s of
    // each (a `sheaf` command on a pglite: URL boots once), 16 MB holds any test's data in 0.04 s.
    await db.exec("alter system set shared_buffers = '16MB'");
    const tar = await db.dumpDataDir('none');
    await writeFile(path, Buffer.from(await tar.arrayBuffer()));
  } finally {
    await db.close();
  }
}

let template: Promise<Blob> | undefined;

/** A new, empty PGlite in memory, unpacked from the run's template. */
export async function freshPglite(): Promise<PGlite> {
  template ??= readFile(inject('pgliteTemplate')).then((bytes) => new Blob([bytes]));
  return PGlite.create({ loadDataDir: await template });
}

/**
 * Unpacks the run's template into `dataDir` (created if missing), without starting it: a cluster for
 * a `pglite:<dataDir>` URL in 0.2 s, where a PGlite that unpacks and boots it takes 0.5 s or more.
 */
export function unpackPgliteDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  // Its names are absolute (/base/1/…): tar strips the leading slash, saying so on stderr.
  execFileSync('tar', ['-xf', inject('pgliteTemplate'), '-C', dataDir], { stdio: 'pipe' });
}

/**
 * What `PGlite.create(dataDir)` does, only faster: opens the PGlite in `dataDir`, which is first
 * unpacked from the template when it holds no cluster yet (instead of running initdb).
 */
export function openPgliteDir(dataDir: string): Promise<PGlite> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) unpackPgliteDir(dataDir);
  return PGlite.create(dataDir);
}
