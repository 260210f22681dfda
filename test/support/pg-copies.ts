import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPg } from './pg-database.js';
import { requireBinDir } from './scratch-cluster.js';

/**
 * The ways a database gets copied without its server: the tools are the machine's (pg_dump,
 * pg_restore, psql of the newest PostgreSQL installed), run as this user over TCP.
 */

/**
 * `create database <name> template <template>` on the server of `serverUrl`: a copy on the same
 * server. PostgreSQL refuses it while anyone is connected to the template, and a pool's end resolves
 * before its backends have exited: waits (bounded) for them first.
 */
export async function templateCopy(serverUrl: string, template: string, name: string): Promise<void> {
  await onPg(serverUrl, async (client) => {
    for (let waited = 0; waited < 5000; waited += 20) {
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [template],
      );
      if (rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query(`create database ${name} template ${template}`);
  });
}

/** `pg_dump -Fc | pg_restore`: the whole database of `fromUrl` into the existing, empty database of `toUrl`. */
export function dumpAndRestore(fromUrl: string, toUrl: string): void {
  inTemporaryDir((dir) => {
    const file = join(dir, 'dump');
    tool('pg_dump', ['-Fc', '-f', file, '-d', fromUrl]);
    tool('pg_restore', ['--exit-on-error', '-d', toUrl, file]);
  });
}

/**
 * What a schema synchroniser does (pglogical's synchronize_structure, a migration tool copying a
 * schema): the structure of `fromUrl` into the existing, empty database of `toUrl`, then the rows
 * of schema `schema`'s tables, but no sequence state: every sequence there is as created, never
 * called.
 */
export function syncSchemaAndRows(fromUrl: string, toUrl: string, schema: string): void {
  inTemporaryDir((dir) => {
    const structure = join(dir, 'structure.sql');
    const rows = join(dir, 'rows.sql');
    tool('pg_dump', ['--schema-only', '--no-publications', '--no-subscriptions', '-f', structure, '-d', fromUrl]);
    tool('pg_dump', ['--data-only', '-n', schema, '-f', rows, '-d', fromUrl]);
    const withoutSequences = readFileSync(rows, 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('SELECT pg_catalog.setval('));
    writeFileSync(rows, withoutSequences.join('\n'));
    for (const file of [structure, rows]) tool('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', toUrl, '-f', file]);
  });
}

function tool(name: string, args: readonly string[]): void {
  execFileSync(join(requireBinDir(), name), args, { stdio: 'pipe', timeout: 120_000 });
}

function inTemporaryDir(work: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'sheaf-copy-'));
  try {
    work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
