import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { writePgliteTemplate } from './pglite-template.js';
import { mysqlUrl, pgUrl, selectedTargets } from './targets.js';

const howToStart =
  'Start it with `npm run services` (installs and starts PostgreSQL and MariaDB on Debian as root), ' +
  'point SHEAF_PG_URL / SHEAF_MYSQL_URL at a server, or deselect it, e.g. SHEAF_TEST_TARGETS=pglite npm test.';

/**
 * Brings the packages' build up to date (incremental: seconds when nothing changed), so tests that
 * run the `sheaf` bin run the code under test; fails the run up front, with instructions, when a
 * selected server target cannot be reached; writes the PGlite template that test files unpack
 * (pglite-template.ts), removed when the run ends.
 */
export default async function globalSetup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url))], {
    stdio: 'inherit',
  });
  const targets = selectedTargets();
  if (targets.includes('postgres')) {
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (error) {
      throw new Error(`PostgreSQL target unreachable at ${pgUrl}: ${String(error)}. ${howToStart}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (targets.includes('mariadb')) {
    try {
      const connection = await mysql.createConnection({ uri: mysqlUrl, connectTimeout: 5000 });
      await connection.query('select 1');
      await connection.end();
    } catch (error) {
      throw new Error(`MariaDB target unreachable at ${mysqlUrl}: ${String(error)}. ${howToStart}`);
    }
  }
  const template = join(tmpdir(), `sheaf-pglite-template-${process.pid}.tar`);
  await writePgliteTemplate(template);
  project.provide('pgliteTemplate', template);
  return () => rm(template, { force: true });
}
