import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { it } from 'vitest';
import { describeTargets, type TargetOptions, type TestDatabase } from './database.js';
import { allTargets, pgUrl, selectedTargets, type TargetName } from './targets.js';

/**
 * The two bodies `sheaf.next_id()` can run (docs/native.md): PL/pgSQL, and the C extension
 * sheaf_native on a PostgreSQL server that has it. PGlite has PL/pgSQL only.
 */
export interface GeneratorPath {
  readonly name: 'plpgsql' | 'native';
  /** What `install()` is given on `target` to run this path: nothing on PGlite (its default). */
  install(target: TargetName): { native?: boolean };
}

export const plpgsqlPath: GeneratorPath = {
  name: 'plpgsql',
  install: (target) => (target === 'pglite' ? {} : { native: false }),
};

export const nativePath: GeneratorPath = { name: 'native', install: () => ({ native: true }) };

/** Why the native path cannot run on the shared PostgreSQL server, or undefined when it can. */
export async function nativeUnavailable(url = pgUrl): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ version: number; available: boolean }>(
      `select current_setting('server_version_num')::int as version,
         exists (select from pg_available_extensions where name = 'sheaf_native') as available`,
    );
    if (!rows[0]?.available)
      return `sheaf_native is not in pg_available_extensions of ${url} (make -C native/postgres install)`;
    if (rows[0].version < 140000) return `the native path needs PostgreSQL 14+, ${url} runs ${rows[0].version}`;
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${url} unreachable: ${String(error)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why a scratch cluster made from `binDir` cannot run the native path (the extension's control file is missing). */
export function nativeUnavailableIn(binDir: string): string | undefined {
  const share = execFileSync(join(binDir, 'pg_config'), ['--sharedir']).toString().trim();
  const control = join(share, 'extension', 'sheaf_native.control');
  return existsSync(control) ? undefined : `${control} is missing (make -C native/postgres install)`;
}

// Asked once per test file, and only when the postgres target runs at all.
const unavailable = selectedTargets().includes('postgres') ? await nativeUnavailable() : 'postgres not selected';

/**
 * Like {@link describeTargets}, once per generator path: PL/pgSQL on every target of `options.only`,
 * native on postgres only, reported as skipped with the reason when the server lacks sheaf_native.
 * `body` installs with `path.install(target)` spread into its options.
 *
 * @example
 * describeGeneratorPaths('next_id', (db, target, path) => {
 *   beforeAll(() => install(db().executor, { ...path.install(target) }));
 * }, { only: ['postgres', 'pglite'] });
 */
export function describeGeneratorPaths(
  title: string,
  body: (db: () => TestDatabase, target: TargetName, path: GeneratorPath) => void,
  options: TargetOptions = {},
): void {
  const targets = options.only ?? allTargets;
  describeTargets(`${title} (PL/pgSQL)`, (db, target) => body(db, target, plpgsqlPath), options);
  if (!targets.includes('postgres')) return;
  if (unavailable && selectedTargets().includes('postgres')) {
    it.skip(`${title} (native) [postgres]: ${unavailable}`);
    return;
  }
  describeTargets(`${title} (native)`, (db, target) => body(db, target, nativePath), { only: ['postgres'] });
}

/**
 * Fails unless `sheaf.next_id()` and `next_id(shard)` run on `path` in the database of `executor`, so
 * that a variant cannot silently test the other path: both are SQL calls of the path's body.
 */
export async function expectGeneratorPath(executor: SqlExecutor, path: GeneratorPath): Promise<void> {
  const rows = await executor.query<{ fn: string; body: string }>(
    `select p.oid::regprocedure::text as fn,
       case when pg_get_functiondef(p.oid) like '%sheaf._native_next_id(%'
           or ((select l.lanname from pg_language l where l.oid = p.prolang) = 'c' and p.prosrc like 'sheaf\\_native\\_next\\_id%') then 'native'
         when pg_get_functiondef(p.oid) like '%sheaf._plpgsql_next_id(%' then 'plpgsql' end as body
     from pg_proc p
     where p.oid in ('sheaf.next_id()'::regprocedure, 'sheaf.next_id(integer)'::regprocedure)`,
  );
  if (rows.length !== 2 || rows.some((row) => row.body !== path.name)) {
    throw new Error(`sheaf.next_id should run on the ${path.name} path: ${JSON.stringify(rows)}`);
  }
}

/**
 * Declares `body` on the postgres target for tests of the native path itself, or reports it as
 * skipped with the reason where the server lacks sheaf_native.
 *
 * @example
 * describeNative('install({ native })', (db) => { it('…', () => install(db().executor, { native: true })); });
 */
export function describeNative(title: string, body: (db: () => TestDatabase) => void): void {
  if (unavailable && selectedTargets().includes('postgres')) {
    it.skip(`${title} [postgres]: ${unavailable}`);
    return;
  }
  describeTargets(title, (db) => body(db), { only: ['postgres'] });
}

/** `count` ids from one statement calling `fn` per row. */
export async function takeIds(session: SqlExecutor, count: number, fn = 'sheaf.next_id()'): Promise<bigint[]> {
  const rows = await session.query<{ id: unknown }>(`select ${fn} as id from generate_series(1, ${count})`);
  return rows.map((row) => BigInt(row.id as string));
}
