import { decodeId, defineLayout, install, presets, uninstall } from '@sheaf/core';
import { expect, it } from 'vitest';
import { postgresNativePath } from '../../packages/core/src/install/native-path.js';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';

const fileCount = async (query: (sql: string) => Promise<{ n: unknown }[]>) =>
  Number((await query('select count(*) as n from sheaf.schema_versions'))[0]?.n);

describeTargets(
  'install on PostgreSQL',
  (db) => {
    const sql = () => db().executor;

    it('creates sheaf._test_reset() in a test install only', async () => {
      const present = async () =>
        (
          await sql().query<{ present: boolean }>(
            "select to_regprocedure('sheaf._test_reset()') is not null as present",
          )
        )[0]?.present;
      await install(sql(), { testClock: true });
      expect(await present()).toBe(true);
      await install(sql(), { testClock: false });
      expect(await present()).toBe(false);
      await uninstall(sql());
      await install(sql());
      expect(await present()).toBe(false);
      await uninstall(sql());
    });

    it('installs, then does nothing the second time', async () => {
      const first = await install(sql(), { shard: 7 });
      expect(first.applied.length).toBeGreaterThan(0);
      const second = await install(sql(), { shard: 7 });
      expect(second).toMatchObject({ version: first.version, applied: [] });
      const [row] = await sql().query<{ shard_id: number }>('select shard_id from sheaf.settings');
      expect(row?.shard_id).toBe(7);
    });

    it('issues ids for the configured shard', async () => {
      const [row] = await sql().query<{ shard_id: number }>('select (sheaf.decode_id(sheaf.next_id())).shard_id');
      expect(row?.shard_id).toBe(7);
    });

    it('refuses a database whose recorded file differs from the package', async () => {
      const [{ checksum } = { checksum: '' }] = await sql().query<{ checksum: string }>(
        'select checksum from sheaf.schema_versions where version = 2',
      );
      await sql().query("update sheaf.schema_versions set checksum = 'tampered' where version = 2");
      await expectSheafRejection(install(sql()), 'INSTALL_CONFLICT', 'file 2', 'tampered');
      await sql().query('update sheaf.schema_versions set checksum = $1 where version = 2', [checksum]);
    });

    it('refuses a database with a newer version than the package knows', async () => {
      await sql().query("insert into sheaf.schema_versions (version, name, checksum) values (999, 'future', 'f')");
      await expectSheafRejection(install(sql()), 'INSTALL_CONFLICT', 'version 999', 'upgrade @sheaf/core');
      await sql().query('delete from sheaf.schema_versions where version = 999');
    });

    it('refuses to uninstall while a column default uses sheaf, naming it', async () => {
      await sql().query('create table orders (id bigint primary key default sheaf.next_id())');
      await expectSheafRejection(uninstall(sql()), 'IN_USE', 'orders');
    });

    it('names every kind of object outside sheaf that uses it: a view, a check, a trigger, a function', async () => {
      await sql().query('create view fresh_ids as select sheaf.next_id() as id');
      await sql().query('create table checked (id bigint check (id < sheaf.id_ceiling(now())))');
      await sql().query('create function touched() returns trigger language plpgsql as $$ begin return new; end $$');
      await sql().query(
        'create trigger stamped before insert on checked for each row when (sheaf.next_id() > 0) execute function touched()',
      );
      await sql().query(
        'create function one_id() returns bigint language sql begin atomic select sheaf.next_id(); end',
      );
      await expectSheafRejection(
        uninstall(sql()),
        'IN_USE',
        'orders',
        'view fresh_ids',
        'constraint checked_id_check on table checked',
        'trigger stamped on table checked',
        'function one_id()',
      );
      for (const statement of [
        'drop view fresh_ids',
        'drop table checked',
        'drop function touched()',
        'drop function one_id()',
      ])
        await sql().query(statement);
    });

    it('uninstalls with force, dropping the default but keeping the table and its rows', async () => {
      await sql().query('insert into orders default values');
      await uninstall(sql(), { force: true });
      const [row] = await sql().query<{ n: string }>('select count(*) as n from orders');
      expect(Number(row?.n)).toBe(1);
      const [schema] = await sql().query<{ present: boolean }>(
        "select to_regnamespace('sheaf') is not null as present",
      );
      expect(schema?.present).toBe(false);
      await uninstall(sql());
    });

    it('installs a custom layout and refuses a name SQL could not hold', async () => {
      const layout = defineLayout({
        name: 'orders-2025',
        epoch: '2025-01-01',
        timeBits: 42,
        shardBits: 8,
        sequenceBits: 13,
      });
      await install(sql(), { layout, shard: 200 });
      const [row] = await sql().query<{ shard_id: number; sequence: number }>(
        'select d.shard_id, d.sequence from sheaf.decode_id(sheaf.encode_id(now(), 200, 8191)) d',
      );
      expect(row).toEqual({ shard_id: 200, sequence: 8191 });
      await uninstall(sql());
      const odd = defineLayout({ name: "it's", epoch: '2025-01-01', timeBits: 41, shardBits: 12, sequenceBits: 10 });
      await expectSheafRejection(install(sql(), { layout: odd }), 'INVALID_LAYOUT', "it's");
      expect(await sql().query("select 1 from pg_namespace where nspname = 'sheaf'")).toEqual([]);
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'concurrent installers',
  (db) => {
    it('8 installers racing on an empty database all succeed, and the files are applied once', async () => {
      const connections = await Promise.all(Array.from({ length: 8 }, () => db().connect()));
      try {
        const results = await Promise.all(connections.map((connection) => install(connection.executor, { shard: 1 })));
        const applied = results.flatMap((result) => result.applied);
        expect(applied.sort((a, b) => a - b)).toEqual(Array.from({ length: results[0]!.version }, (_, i) => i + 1));
        expect(await fileCount((text) => db().executor.query(text))).toBe(results[0]!.version);
      } finally {
        await Promise.all(connections.map((connection) => connection.close()));
      }
    });
  },
  { only: ['postgres'] },
);

/** The first file that configures a shard (sheaf.configure): below it an install's shard is ignored. */
const configuresFrom = 3;

describeGeneratorPaths(
  'upgrade on PostgreSQL',
  (db, target, path) => {
    const sql = () => db().executor;

    // Two installs per earlier version: 18-40 s at 21 versions on a loaded 2-core machine. An install
    // that stops before the native path cannot choose it: the upgrade does. Each earlier version is
    // installed as shard 7 and upgraded by an install() without a shard, as an application's start-up
    // runs it: the upgrade keeps the shard (baked into the functions, so the catalog shows it) from
    // the first file that configures (0003) on.
    it('upgrades from every earlier version, installed as shard 7, to the same result as a fresh install', async () => {
      const catalog = async () => ({
        // By name and language too: a routine an upgrade leaves behind, or one left in another
        // language, differs from the fresh install.
        functions: await sql().query(
          `select p.oid::regprocedure::text as name, l.lanname as language, pg_get_functiondef(p.oid) as definition,
             p.proacl::text as acl
           from pg_proc p join pg_language l on l.oid = p.prolang
           where p.pronamespace = 'sheaf'::regnamespace order by 1`,
        ),
        columns: await sql().query(
          `select table_name, column_name, data_type, column_default, is_nullable
           from information_schema.columns where table_schema = 'sheaf' order by 1, 2`,
        ),
        constraints: await sql().query(
          `select conrelid::regclass::text as on_table, conname, pg_get_constraintdef(oid) as definition
           from pg_constraint where connamespace = 'sheaf'::regnamespace order by 1, 2`,
        ),
        indexes: await sql().query("select indexname, indexdef from pg_indexes where schemaname = 'sheaf' order by 1"),
        sequences: await sql().query(
          `select sequencename, data_type::text, start_value::text, min_value::text, max_value::text,
             increment_by::text, cycle, cache_size::text
           from pg_sequences where schemaname = 'sheaf' order by 1`,
        ),
      });
      const freshAs = async (shard: number) => {
        const { version } = await install(sql(), { ...path.install(target), shard });
        await expectGeneratorPath(sql(), path);
        const fresh = await catalog();
        await uninstall(sql());
        return { version, fresh };
      };
      const { version: latest, fresh: fresh0 } = await freshAs(0);
      const { fresh: fresh7 } = await freshAs(7);
      expect(fresh7.functions.length).toBeGreaterThan(20);
      expect(fresh7.sequences.length).toBeGreaterThanOrEqual(2);
      expect(fresh7).not.toEqual(fresh0);
      for (let from = 1; from < latest; from++) {
        const partial = await install(sql(), {
          upTo: from,
          shard: 7,
          ...(from >= postgresNativePath.from ? path.install(target) : {}),
        });
        expect(partial.version).toBe(from);
        const upgraded = await install(sql(), path.install(target));
        expect(upgraded.applied).toEqual(Array.from({ length: latest - from }, (_, i) => from + i + 1));
        const shard = from >= configuresFrom ? 7 : 0;
        expect(await catalog(), `from ${from}`).toEqual(shard === 7 ? fresh7 : fresh0);
        const [row] = await sql().query<{ id: string }>('select sheaf.next_id()::text as id');
        expect(decodeId(row!.id, presets.sheaf).shardId, `from ${from}`).toBe(shard);
        await uninstall(sql());
      }
    }, 180_000);
  },
  { only: ['postgres', 'pglite'] },
);
