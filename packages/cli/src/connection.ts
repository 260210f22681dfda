import { existsSync } from 'node:fs';
import { SheafError, type SqlExecutor } from '@sheaf/core';
import { type Args, text } from './args.js';
import type { Io } from './io.js';
import { redactUrl } from './redact.js';
import { checkSslMode } from './ssl-mode.js';
import { UsageError } from './usage-error.js';

/** Where a command's database is, read from `--url` or `DATABASE_URL` without connecting. */
export type Target =
  | { readonly driver: 'pg'; readonly dialect: 'postgres'; readonly url: string }
  | { readonly driver: 'mysql2'; readonly dialect: 'mysql'; readonly url: string }
  | { readonly driver: 'pglite'; readonly dialect: 'postgres'; readonly dir: string };

/** An open connection; `close` ends it so the process can exit. */
export interface Connection {
  readonly executor: SqlExecutor;
  close(): Promise<void>;
}

/** The `--url` option every database command takes. */
export const urlOption = { url: { type: 'string' } } as const;

export const urlHelp = `  --url <url>        postgres://… or postgresql://… (pg), mysql://… or mariadb://… (mysql2),
                     pglite:<dir> or a directory (embedded PGlite); default: $DATABASE_URL`;

/** The target named by `--url`, else `DATABASE_URL`; INVALID_ARGUMENT for an sslmode its driver would misread. */
export function targetOf(args: Args, io: Io): Target {
  const raw = text(args, 'url') ?? io.env.DATABASE_URL;
  if (raw === undefined || raw === '') throw new UsageError('missing --url (or the DATABASE_URL environment variable)');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    checkSslMode('pg', raw, io.env);
    return { driver: 'pg', dialect: 'postgres', url: raw };
  }
  // mysql2 reads the URL's parts, not its scheme; MariaDB speaks the same protocol.
  if (scheme === 'mysql' || scheme === 'mariadb') {
    checkSslMode('mysql2', raw, io.env);
    return { driver: 'mysql2', dialect: 'mysql', url: raw.replace(/^mariadb:/i, 'mysql:') };
  }
  if (scheme === 'pglite') return { driver: 'pglite', dialect: 'postgres', dir: raw.slice('pglite:'.length) };
  if (scheme !== undefined && raw.slice(scheme.length + 1).startsWith('//')) {
    throw new UsageError(
      `--url ${scheme}://… is not supported: use postgres://, postgresql://, mysql://, mariadb://, pglite:<dir> or a directory`,
    );
  }
  return { driver: 'pglite', dialect: 'postgres', dir: raw };
}

/**
 * Connects with the target's driver, imported only now so decode and encode start fast. A PGlite
 * directory that does not exist is created only when `create` is set (by install).
 */
export async function connect(target: Target, options: { create: boolean }): Promise<Connection> {
  const core = await import('@sheaf/core');
  if (target.driver === 'pg') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    return { executor: core.pgExecutor(client), close: () => client.end() };
  }
  if (target.driver === 'mysql2') {
    const { default: mysql } = await import('mysql2/promise');
    const connection = await mysql.createConnection({ uri: target.url });
    return { executor: core.mysql2Executor(connection), close: () => connection.end() };
  }
  if (!options.create && !existsSync(target.dir)) {
    throw new SheafError('NOT_INSTALLED', `no PGlite database at ${target.dir}: the directory does not exist`, {
      details: { dir: target.dir },
    });
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(target.dir);
  return { executor: core.pgliteExecutor(db), close: () => db.close() };
}

/** Runs `work` on a connection to the target and always closes it. */
export async function withConnection<T>(
  target: Target,
  options: { create: boolean },
  work: (executor: SqlExecutor) => Promise<T>,
): Promise<T> {
  const connection = await connect(target, options);
  try {
    return await work(connection.executor);
  } finally {
    await connection.close();
  }
}

/** The database a MySQL URL names (its path), for scripts printed without connecting; undefined elsewhere. */
export function databaseOf(target: Target): string | undefined {
  if (target.driver !== 'mysql2') return undefined;
  const name = decodeURIComponent(new URL(target.url).pathname.slice(1));
  return name === '' ? undefined : name;
}

/** The target for messages: a URL without its password. */
export function describeTarget(target: Target): string {
  return target.driver === 'pglite' ? `PGlite at ${target.dir}` : redactUrl(target.url);
}

/** The target as `--url` takes it in a command a message suggests: a URL without its password. */
export function targetUrl(target: Target): string {
  return target.driver === 'pglite' ? `pglite:${target.dir}` : redactUrl(target.url);
}
