import { existsSync } from 'node:fs';
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
 * same cluster as one that ran its own initdb, which takes 4-5 s of WASM on this project's
 * machines against under 1 s to unpack: the suite makes over a hundred of them.
 */
export async function writePgliteTemplate(path: string): Promise<void> {
  const db = await PGlite.create();
  try {
    const tar = await db.dumpDataDir('none');
    await writeFile(path, Buffer.from(await tar.arrayBuffer()));
  } finally {
    await db.close();
  }
}

let template: Promise<Blob> | undefined;

/**
 * A new, empty PGlite: in memory, or in `dataDir` (a directory that does not exist yet, as the CLI's
 * `pglite:<dir>` URLs name), unpacked from the run's template.
 */
export async function freshPglite(dataDir?: string): Promise<PGlite> {
  template ??= readFile(inject('pgliteTemplate')).then((bytes) => new Blob([bytes]));
  return PGlite.create(dataDir, { loadDataDir: await template });
}

/**
 * What `PGlite.create(dataDir)` does, only faster: opens the PGlite in `dataDir`, which is first
 * unpacked from the template when it holds no cluster yet (instead of running initdb).
 */
export function openPgliteDir(dataDir: string): Promise<PGlite> {
  return existsSync(join(dataDir, 'PG_VERSION')) ? PGlite.create(dataDir) : freshPglite(dataDir);
}
