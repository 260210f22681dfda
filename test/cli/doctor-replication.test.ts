import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pgExecutor } from '@sheaf/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createScratchCluster, postgresBinDir } from '../support/scratch-cluster.js';
import { withDatabase } from '../support/targets.js';
import { type CheckJson, type DoctorJson, doctor } from './doctor-run.js';
import { onUrl, postgresSelected, scratchDatabase } from './pg-scratch.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test; the pglogical test also starts a cluster.
const cliTimeout = 180_000;

function replicationOf(report: DoctorJson): CheckJson {
  const found = report.databases[0]?.checks.find((c) => c.name === 'replication');
  if (!found) throw new Error(`no replication check in ${JSON.stringify(report.databases[0])}`);
  return found;
}

const sheafTables = [
  'sheaf.lock_secret',
  'sheaf.logical_shards',
  'sheaf.schema_versions',
  'sheaf.segments',
  'sheaf.settings',
  'sheaf.tickets',
  'sheaf.workers',
];

const fix =
  "replicates sheaf's own tables: a subscriber would take this database's shard and settings as its own; " +
  'remove schema sheaf from it and replicate only application tables';
const publicationNote =
  ' (a publication FOR ALL TABLES or TABLES IN SCHEMA sheaf takes them too: list the application tables instead)';

// pglogical needs its library preloaded, which the shared server does not do: a scratch cluster does.
const pglogicalLibrary = (() => {
  const bin = postgresBinDir();
  return bin !== undefined && existsSync(join(bin, '..', 'lib', 'pglogical.so'));
})();

describe.skipIf(!postgresSelected)('sheaf doctor and status on schema sheaf replicated [postgres]', () => {
  it(
    'fails a publication FOR ALL TABLES, TABLES IN SCHEMA sheaf or of a sheaf table, naming it; status warns',
    async () => {
      const url = await scratchDatabase();
      expect((await sheaf(['install', '--url', url, '--shard', '2'])).code).toBe(0);
      // CREATE PUBLICATION works at any wal_level (it only warns below logical): the shared server's
      // 'replica' is enough to test what the doctor reads.
      await onUrl(url, async (sql) => {
        await sql.query('create table app_orders (id bigint primary key default sheaf.next_id())');
        await sql.query('create publication app_only for table app_orders');
      });
      const clean = await doctor([url]);
      expect(clean.code).toBe(0);
      expect(replicationOf(clean.report)).toMatchObject({
        status: 'ok',
        message: 'no publication or pglogical replication set includes schema sheaf',
      });

      await onUrl(url, (sql) => sql.query('create publication everything for all tables'));
      const all = await doctor([url]);
      expect(all.code).toBe(1);
      expect(replicationOf(all.report)).toMatchObject({
        status: 'fail',
        message: `publication everything (sheaf.lock_secret, sheaf.logical_shards, sheaf.schema_versions, and 4 more) ${fix}${publicationNote}`,
        details: { replicated: [{ via: 'publication', name: 'everything', relations: sheafTables }] },
      });
      expect(all.stderr).toBe(`sheaf: 1 check failed: replication on ${url} (SERVER_CONFIG)\n`);

      const status = await sheaf(['status', '--url', url]);
      expect(status.code).toBe(0);
      expect(status.stderr).toBe('');
      expect(status.stdout).toMatch(/^shard {8}2$/m);
      expect(status.stdout).toContain(`\nwarning      publication everything (sheaf.lock_secret, `);
      const json = JSON.parse((await sheaf(['status', '--url', url, '--json'])).stdout) as Record<string, unknown>;
      expect(json.findings).toEqual([
        {
          name: 'replication',
          status: 'warn',
          code: 'SERVER_CONFIG',
          message: expect.stringMatching(/^publication everything /),
        },
      ]);

      await onUrl(url, async (sql) => {
        await sql.query('drop publication everything');
        await sql.query('create publication sheaf_schema for tables in schema sheaf');
        await sql.query('create publication settings_only for table sheaf.settings');
      });
      const named = await doctor([url]);
      expect(replicationOf(named.report).message).toBe(
        `publication settings_only (sheaf.settings) and publication sheaf_schema (sheaf.lock_secret, ` +
          "sheaf.logical_shards, sheaf.schema_versions, and 4 more) replicate sheaf's own tables: a subscriber " +
          "would take this database's shard and settings as its own; remove schema sheaf from them and " +
          `replicate only application tables${publicationNote}`,
      );

      await onUrl(url, async (sql) => {
        await sql.query('drop publication sheaf_schema');
        await sql.query('drop publication settings_only');
      });
      expect((await doctor([url])).code).toBe(0);
    },
    cliTimeout,
  );

  it.skipIf(!pglogicalLibrary)(
    'fails a pglogical replication set holding a table or sequence of schema sheaf, naming it (needs pglogical installed)',
    async () => {
      const cluster = await createScratchCluster();
      try {
        const admin = new pg.Client({ connectionString: cluster.url });
        await admin.connect();
        await admin.query("alter system set shared_preload_libraries = 'pglogical'");
        await admin.query('create database app');
        await admin.end();
        cluster.crash();
        cluster.start();
        const url = withDatabase(cluster.url, 'app');
        expect((await sheaf(['install', '--url', url, '--shard', '4'])).code).toBe(0);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const sql = pgExecutor(client);
          await sql.query('create extension pglogical');
          await sql.query("select pglogical.create_node('app', 'dbname=app')");
          expect(replicationOf((await doctor([url])).report).status).toBe('ok');
          await sql.query("select pglogical.create_replication_set('with_sheaf')");
          await sql.query("select pglogical.replication_set_add_table('with_sheaf', 'sheaf.settings')");
          await sql.query("select pglogical.replication_set_add_sequence('with_sheaf', 'sheaf.block')");
        } finally {
          await client.end();
        }
        const { code, report } = await doctor([url]);
        expect(code).toBe(1);
        expect(replicationOf(report)).toMatchObject({
          status: 'fail',
          message: `pglogical replication set with_sheaf (sheaf.block, sheaf.settings) ${fix}`,
        });
      } finally {
        cluster.destroy();
      }
    },
    cliTimeout,
  );
});
