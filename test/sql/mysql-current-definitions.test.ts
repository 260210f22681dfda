import { readdirSync, readFileSync } from 'node:fs';
import { decodeId, install, mysqlState, presets, sqlVersion, uninstall } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { mysqlPlaceholders } from '../../packages/core/src/install/mysql.js';
import { statementsOf } from '../../packages/core/src/install/sql-file.js';
import { describeTargets } from '../support/database.js';
import { failingAt } from '../support/failing-executor.js';
import { suiteAccounts } from '../support/mysql-accounts.js';

const sqlDir = new URL('../../sql/mysql/', import.meta.url);
const routinesDir = new URL('routines/', sqlDir);
/** The forwards of the application's database, all in one file: each is one line calling its namesake. */
const forwardsFile = 'forwards.sql';

/** One routine as a file under sql/mysql/routines creates it. */
interface Definition {
  readonly file: string;
  /** `state procedure sheaf_configure`, `app function sheaf_next_id`. */
  readonly key: string;
  readonly name: string;
  readonly where: 'state' | 'app';
  readonly statement: string;
}

const creates = /^create definer = current_user (function|procedure) \{(state|app)\}\.(\w+)\(/;

/** Every statement of every routines file, each of which must create one routine. */
function definitions(): Definition[] {
  return readdirSync(routinesDir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .flatMap((file) =>
      statementsOf(readFileSync(new URL(file, routinesDir), 'utf8')).map((statement) => {
        const match = creates.exec(statement.replace(/^--.*\n/gm, '').trim());
        if (!match) throw new Error(`sql/mysql/routines/${file}: a statement that creates no routine`);
        const [, kind, where, name] = match as unknown as [string, string, 'state' | 'app', string];
        return { file, key: `${where} ${kind} ${name}`, name, where, statement };
      }),
    );
}

/** The statements of sql/mysql/tables.sql. */
const tableStatements = () => statementsOf(readFileSync(new URL('tables.sql', sqlDir), 'utf8'));

/** A name the installer stamps with the version of the file that needed it for a while. */
const stamped = /_\d{4}$/;

describeTargets(
  'MySQL: every routine and table has one current definition, and upgrades equal a fresh install',
  (db) => {
    const names = () => mysqlState(new URL(String(db().url)).pathname.slice(1));
    const where = (schema: string) => (schema === names().app ? 'app' : 'state');
    const query = <T extends Record<string, unknown>>(sql: string, params?: readonly unknown[]) =>
      db().executor.query<T>(sql, params);

    /** Routines of both databases with every field that does not name the definer or a time. */
    const routines = async () =>
      (
        await query<{ routine_schema: string; routine_type: string; routine_name: string }>(
          `select routine_schema, routine_type, routine_name, data_type, dtd_identifier, routine_body,
             routine_definition, is_deterministic, sql_data_access, security_type, sql_mode, routine_comment,
             character_set_client, collation_connection, database_collation,
             (select group_concat(concat_ws(' ', parameter_mode, parameter_name, dtd_identifier)
                order by ordinal_position separator ', ')
              from information_schema.parameters p
              where p.specific_schema = r.routine_schema and p.specific_name = r.routine_name
                and p.routine_type = r.routine_type and p.ordinal_position > 0) as parameters
           from information_schema.routines r where routine_schema in (?, ?)
           order by routine_schema, routine_type, routine_name`,
          [names().app, names().state],
        )
      ).map(({ routine_schema, ...row }) => ({
        key: `${where(routine_schema)} ${row.routine_type.toLowerCase()} ${row.routine_name}`,
        ...row,
      }));

    const privileges = () =>
      query(
        `select db, user, host, routine_name, routine_type, proc_priv from mysql.procs_priv
          where db in (?, ?) order by db, routine_name, routine_type, user`,
        [names().app, names().state],
      );

    /** Each table of `schema` as SHOW CREATE TABLE has it, without the counter's current value. */
    const tables = async (schema: string) => {
      const list = await query<{ name: string }>(
        'select table_name as name from information_schema.tables where table_schema = ? order by 1',
        [schema],
      );
      const shapes: Record<string, string> = {};
      for (const { name } of list) {
        const [row] = await query<Record<string, string>>(`show create table \`${schema}\`.\`${name}\``);
        shapes[name] = String(row?.['Create Table']).replace(/ AUTO_INCREMENT=\d+/, '');
      }
      return shapes;
    };

    const catalog = async () => ({
      routines: await routines(),
      appTables: await tables(names().app),
      stateTables: await tables(names().state),
      triggers: await query(
        `select trigger_schema = ? as in_app, trigger_name, event_manipulation, event_object_table,
           action_timing, action_statement
         from information_schema.triggers where trigger_schema in (?, ?) order by 1, 2`,
        [names().app, names().app, names().state],
      ),
      events: await query(
        `select event_schema = ? as in_app, event_name, event_definition, status
         from information_schema.events where event_schema in (?, ?) order by 1, 2`,
        [names().app, names().app, names().state],
      ),
      versions: await query(
        `select version, name, checksum from \`${names().state}\`.sheaf_schema_versions order by 1`,
      ),
    });

    const stampedRoutines = async () =>
      (await routines()).map((routine) => routine.key).filter((key) => stamped.test(key));

    beforeAll(async () => {
      await uninstall(db().executor, { force: true });
      await install(db().executor);
    });

    // Every routine a fresh install creates is there on every install: none is conditional on
    // MySQL/MariaDB. A test install's clock is a variant of sheaf__claim_chunk (mysql-test-clock.ts),
    // not a routine of its own, and the printed script's sheaf__drop_dependents drops itself.
    it('every routine of both databases is defined by exactly one file under sql/mysql/routines, and each file by its name', async () => {
      const defined = definitions();
      const installed = (await routines()).map((routine) => routine.key);
      expect(installed.length).toBeGreaterThan(60);
      const filesOf = (key: string) => defined.filter((each) => each.key === key).map((each) => each.file);
      const problems = [
        ...installed.filter((key) => filesOf(key).length !== 1).map((key) => `${key}: in [${filesOf(key)}]`),
        ...defined.filter((each) => !installed.includes(each.key)).map((each) => `${each.key}: not installed`),
        // Found by its name: one file per routine of sheaf's database, the forwards in one file.
        ...defined
          .filter((each) => each.file !== (each.where === 'state' ? `${each.name}.sql` : forwardsFile))
          .map((each) => `${each.key}: in ${each.file}`),
      ];
      expect(problems).toEqual([]);
    });

    it('running every routines file again, as the installer fills it in, changes no routine and no grant', async () => {
      const accounts = suiteAccounts(db());
      try {
        const app = await accounts.create('defs');
        await query(`grant execute on function \`${names().app}\`.sheaf_next_id to ${app.sql}`);
        await query(`grant execute on procedure \`${names().state}\`.sheaf_configure to ${app.sql}`);
        const before = { routines: await routines(), privileges: await privileges() };
        expect(before.privileges).toHaveLength(2);
        const fill = await mysqlPlaceholders(db().executor);
        // MariaDB's CREATE OR REPLACE keeps the routine's grants, as ALTER would.
        for (const { statement } of definitions())
          await query(fill(statement.replace(/^create /m, 'create or replace ')));
        expect({ routines: await routines(), privileges: await privileges() }).toEqual(before);
      } finally {
        await accounts.drop();
      }
    });

    it('tables.sql makes the tables of a fresh install: columns, keys, constraints, engine', async () => {
      const scratch = `${names().app}_tables`;
      await query(`create database \`${scratch}\``);
      try {
        for (const statement of tableStatements()) await query(statement.replaceAll('{state}', `\`${scratch}\``));
        const made = await tables(scratch);
        expect(Object.keys(made).length).toBeGreaterThan(8);
        expect(made).toEqual(await tables(names().state));
      } finally {
        await query(`drop database if exists \`${scratch}\``);
      }
    });

    /** The first file that configures a shard (sheaf_configure): below it an install's shard is ignored. */
    const configuresFrom = 2;
    // Each earlier version is installed as shard 7 and upgraded by an install() without a shard, as an
    // application's start-up runs it: the upgrade keeps the shard from the first file that configures
    // (0002) on. The settings row is not part of the catalog.
    it('an upgrade from every earlier version, installed as shard 7, leaves what a fresh install does, keeps the shard, and no stamped routine', async () => {
      await uninstall(db().executor, { force: true });
      const { version: latest } = await install(db().executor);
      expect(latest).toBe(sqlVersion('mysql'));
      const fresh = await catalog();
      expect(await stampedRoutines()).toEqual([]);
      expect(Object.keys(fresh.appTables)).toEqual([]);
      for (let from = 1; from < latest; from++) {
        await uninstall(db().executor, { force: true });
        expect((await install(db().executor, { shard: 7, upTo: from })).version).toBe(from);
        const upgraded = await install(db().executor);
        expect(upgraded.applied).toEqual(Array.from({ length: latest - from }, (_, i) => from + i + 1));
        expect(await stampedRoutines(), `from ${from}`).toEqual([]);
        expect(await catalog(), `from ${from}`).toEqual(fresh);
        const shard = from >= configuresFrom ? 7 : 0;
        const [settings] = await query<{ shard_id: unknown; layout_name: unknown }>(
          `select shard_id, layout_name from \`${names().state}\`.sheaf_settings`,
        );
        expect({ shard: Number(settings?.shard_id), layout: settings?.layout_name }, `from ${from}`).toEqual({
          shard,
          layout: 'sheaf',
        });
        const [row] = await query<{ id: unknown }>('select sheaf_next_id() as id');
        expect(decodeId(String(row?.id), presets.sheaf).shardId, `from ${from}`).toBe(shard);
      }
    }, 120_000);

    // Each stamped helper lives only while its file runs: an upgrade that stopped in it (its checks
    // refused the database, or the connection was lost) leaves it, unrecorded, and the next install
    // drops it before running the file again (install/leftovers.ts), then once more at its end.
    it('a stamped helper left by an upgrade stopped in its file is gone after the next install', async () => {
      for (const [from, at] of [
        [5, /^call sheaf__id_space_0006\(/m],
        [7, /^call sheaf__segment_classes_0008\(/m],
        [8, /^call sheaf__adopt_ticket_0009\(/m],
        [11, /^call `[^`]+`\.sheaf__move_0012\(/m],
      ] as const) {
        await uninstall(db().executor, { force: true });
        await install(db().executor, { upTo: from });
        await expect(install(failingAt(db().executor, at, 'before'))).rejects.toThrow(/injected failure/);
        expect(await stampedRoutines(), String(at)).toHaveLength(1);
        await install(db().executor);
        expect(await stampedRoutines(), String(at)).toEqual([]);
      }
    });
  },
  { only: ['mariadb'] },
);
