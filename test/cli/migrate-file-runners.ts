// How each tool runs what `sheaf migrate --out` wrote, exactly as docs/migrating-existing-tables.md
// ("Migration files") tells people to: the server's command-line client for `--format sql`, knex's
// and drizzle's own migrators, and for Prisma what `prisma migrate deploy` does with migration.sql
// (its schema engine is not downloadable here, so the tests do the same by other means).
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { migrate as migrateMysql } from 'drizzle-orm/mysql2/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import knex from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';

/** A `--format` name. */
export type FileFormat = 'sql' | 'prisma' | 'knex' | 'drizzle';

/** Runs the files of one format that `sheaf migrate --out <out>` wrote, on the database behind `url`. */
export type FileRunner = (url: string, out: string) => Promise<void>;

const run = promisify(execFile);

/** The one file under `dir` (searched recursively) whose name matches `pattern`. */
export async function onlyFile(dir: string, pattern: RegExp): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found = entries.filter((entry) => entry.isFile() && pattern.test(entry.name));
  if (found.length !== 1) throw new Error(`expected one file matching ${pattern} under ${dir}, found ${found.length}`);
  const [file] = found;
  return join(file!.parentPath, file!.name);
}

/** `psql -X -v ON_ERROR_STOP=1 [-1] -d <url> -f <file>`: stops at the first error with a non-zero exit. */
async function psql(url: string, file: string, singleTransaction: boolean): Promise<void> {
  await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...(singleTransaction ? ['-1'] : []), '-d', url, '-f', file]);
}

/** `mariadb <database> < <file>`, connection flags from the URL; rejects with the client's stderr. */
function mariadbClient(url: string, file: string): Promise<void> {
  const { hostname, port, username, password, pathname } = new URL(url);
  const args = ['-h', hostname, '-P', port || '3306', '-u', decodeURIComponent(username), pathname.slice(1)];
  const input = openSync(file, 'r');
  return new Promise((resolve, reject) => {
    const child = spawn('mariadb', args, {
      stdio: [input, 'ignore', 'pipe'],
      env: { ...process.env, MYSQL_PWD: decodeURIComponent(password) },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(input);
      if (code === 0) resolve();
      else reject(new Error(`mariadb exited ${code}: ${stderr}`));
    });
  });
}

async function knexLatest(client: 'pg' | 'mysql2', url: string, out: string): Promise<void> {
  const k = knex({ client, connection: url });
  try {
    const [, applied] = (await k.migrate.latest({ directory: out })) as [number, string[]];
    if (applied.length !== 1) throw new Error(`knex applied ${applied.length} migrations, expected 1`);
  } finally {
    await k.destroy();
  }
}

/** PostgreSQL: psql, knex's pg migrator, drizzle's node-postgres migrator. */
export const postgresRunners: Record<FileFormat, FileRunner> = {
  sql: async (url, out) => psql(url, await onlyFile(out, /^\d{14}_sheaf_ids\.sql$/), false),
  // migrate deploy sends migration.sql as one simple query: one implicit transaction, as `psql -1`.
  prisma: async (url, out) => psql(url, await onlyFile(out, /^migration\.sql$/), true),
  knex: (url, out) => knexLatest('pg', url, out),
  drizzle: async (url, out) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migratePg(drizzlePg(client), { migrationsFolder: out });
    } finally {
      await client.end();
    }
  },
};

/** MariaDB: the mariadb client, Prisma's way of sending migration.sql, knex's and drizzle's mysql2 migrators. */
export const mariadbRunners: Record<FileFormat, FileRunner> = {
  sql: async (url, out) => mariadbClient(url, await onlyFile(out, /^\d{14}_sheaf_ids\.sql$/)),
  // Prisma's schema engine sends the whole migration.sql as one multi-statement query and the server
  // splits it (prisma-engines: sql-schema-connector, flavour/mysql apply_migration_script): trigger
  // bodies need no DELIMITER there, and a DELIMITER line would be a syntax error.
  prisma: async (url, out) => {
    const script = await readFile(await onlyFile(out, /^migration\.sql$/), 'utf8');
    const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
    try {
      await connection.query(script);
    } finally {
      await connection.end();
    }
  },
  knex: (url, out) => knexLatest('mysql2', url, out),
  drizzle: async (url, out) => {
    const connection = await mysql.createConnection({ uri: url });
    try {
      await migrateMysql(drizzleMysql(connection), { migrationsFolder: out });
    } finally {
      await connection.end();
    }
  },
};
