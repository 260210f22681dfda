// The migration journal on MySQL/MariaDB against an application account with the grant most apps
// get (SELECT, INSERT, UPDATE, DELETE, EXECUTE on the app's database): a row it plants where
// earlier versions kept the journal is never run, it cannot reach sheaf's state database, and a
// record changed there behind sheaf's back is refused, not run.
import { install, mysql2Executor, mysqlState, type SqlExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrationStatus, resumeMigration } from '../../packages/migrate/src/index.js';
import { sheaf } from '../cli/run-sheaf.js';
import { describeTargets } from '../support/database.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';
import { mysqlUrl, withDatabase } from '../support/targets.js';

/** The MySQL error number a refused statement failed with; undefined when it succeeded. */
async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { errno?: number; cause?: { errno?: number } },
  );
  return error && (error.errno ?? error.cause?.errno ?? -1);
}

// The journal as sheaf 0.x created it in the application's database, on the first --apply.
const legacyTableSql = `
  create table if not exists sheaf_migrations (
    id integer not null auto_increment primary key,
    state varchar(16) not null,
    selection text null,
    plan_checksum char(64) not null,
    steps longtext not null,
    fingerprints longtext not null,
    steps_total integer not null,
    steps_done integer not null default 0,
    running_step integer null,
    note text null,
    started_at datetime(3) not null,
    updated_at datetime(3) not null,
    finished_at datetime(3) null
  ) engine = innodb`;

/** A journal row whose step and inverse both hand `account` every privilege on the server. */
function plantedRow(account: SuiteAccount, effect: readonly unknown[], stepsDone: number): unknown[] {
  const escalate = `grant all privileges on *.* to ${account.sql} with grant option`;
  const steps = [{ describe: 'orders: id int → bigint', sql: escalate, undo: escalate, effect }];
  return [JSON.stringify({ all: true }), 'f'.repeat(64), JSON.stringify(steps), '[]', stepsDone];
}

const plantSql = `
  insert into sheaf_migrations (state, selection, plan_checksum, steps, fingerprints, steps_total, steps_done,
    started_at, updated_at)
  values ('running', ?, ?, ?, ?, 1, ?, utc_timestamp(3), utc_timestamp(3))`;

/** Privileges the account holds on the whole server (`ON *.*`), USAGE (none) left out. */
async function globalPrivileges(sql: SqlExecutor, account: SuiteAccount): Promise<string[]> {
  const rows = await sql.query<Record<string, string>>(`show grants for ${account.sql}`);
  return rows
    .map((row) => String(Object.values(row)[0]))
    .filter((line) => / ON \*\.\* /.test(line) && !/^GRANT USAGE ON/.test(line));
}

describeTargets(
  'the MySQL/MariaDB migration journal against an application account',
  (db) => {
    let accounts: SuiteAccounts;
    let app: SuiteAccount;
    let owner: SuiteAccount;
    let name: string;
    let url: string;

    beforeAll(async () => {
      const sql = db().executor;
      url = String(db().url);
      name = new URL(url).pathname.slice(1);
      await install(sql, { shard: 5 });
      await sql.query('create table customers (id int not null auto_increment primary key, email varchar(40))');
      await sql.query(`create table orders (id int not null auto_increment primary key, customer_id int not null,
        foreign key (customer_id) references customers (id))`);
      await sql.query("insert into customers (email) values ('a@example.com'), ('b@example.com')");
      await sql.query('insert into orders (customer_id) values (1), (2), (2)');
      accounts = suiteAccounts(db());
      app = await accounts.create('app');
      await sql.query(`grant select, insert, update, delete, execute on \`${name}\`.* to ${app.sql}`);
      // An account that owns the application's database: no more reach into sheaf's.
      owner = await accounts.create('own');
      await sql.query(`grant all on \`${name}\`.* to ${owner.sql} with grant option`);
      // An earlier sheaf made this table on its first --apply, as the database's owner.
      await sql.query(legacyTableSql);
    });

    afterAll(async () => {
      await accounts?.drop();
    });

    it('a row the app plants in the old journal is never run: --abort and --apply leave it, doctor names it', async () => {
      const sql = db().executor;
      const always = [{ kind: 'bigint columns', table: { schema: name, name: 'orders' }, columns: [] }];
      // Aborting this one would send its inverse, as root: its effect holds, so step 1 looks done.
      await app.as((session) => session.query(plantSql, plantedRow(app, always, 1)));
      const status = await sheaf(['migrate', '--url', url, '--status']);
      expect([status.code, status.stdout]).toEqual([0, `no migration journaled in database ${name}\n`]);
      const abort = await sheaf(['migrate', '--url', url, '--abort']);
      expect([abort.code, abort.stdout]).toEqual([0, 'nothing to abort: no unfinished migration in this database\n']);

      // Resuming this one would send its statement: its effect does not hold yet.
      const never = [{ kind: 'trigger', name: { schema: name, name: 'sheaf_never' } }];
      await app.as((session) => session.query(plantSql, plantedRow(app, never, 0)));
      await expect(resumeMigration(sql)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const applied = await sheaf(['migrate', '--url', url, '--all', '--apply']);
      expect(applied.stderr).toMatch(/fingerprinting 2 tables after the migration\n$/);
      expect(applied.code).toBe(0);
      expect(applied.stdout).not.toContain('Resuming');
      expect((await migrationStatus(sql)).latest).toMatchObject({ id: 1, state: 'done', trusted: true });
      expect(await sql.query('show create table orders')).toEqual([
        expect.objectContaining({ 'Create Table': expect.stringContaining('`id` bigint(20) NOT NULL AUTO_INCREMENT') }),
      ]);

      expect(await globalPrivileges(sql, app)).toEqual([]);
      const planted = await sql.query<{ id: number; state: string }>('select id, state from sheaf_migrations');
      expect(planted).toEqual([
        { id: 1, state: 'running' },
        { id: 2, state: 'running' },
      ]);

      const doctor = await sheaf(['doctor', '--url', url]);
      expect(doctor.code).toBe(0);
      expect(doctor.stdout).toMatch(
        /^ {2}warn +legacy journal +sheaf_migrations \(the journal of an earlier version, in this database\) has unfinished migrations #1, #2: sheaf no longer runs them/m,
      );
    });

    it("the app account and the database's owner can neither read nor write sheaf's state database", async () => {
      const state = mysqlState(name);
      const denied = [1142, 1044];
      for (const account of [app, owner])
        await account.as(async (session) => {
          for (const statement of [
            `select * from ${state.in('sheaf_migrations')}`,
            `select * from ${state.in('sheaf_journal_key')}`,
            `update ${state.in('sheaf_migrations')} set steps = '[]'`,
            `delete from ${state.in('sheaf_journal_key')}`,
            `insert into ${state.in('sheaf_migrations')} (id) values (99)`,
            `create table ${state.in('sheaf_mine')} (id int)`,
            `use ${state.stateSql}`,
          ]) {
            expect([statement, denied.includes((await refusal(session.query(statement))) ?? 0)]).toEqual([
              statement,
              true,
            ]);
          }
        });
    });

    it('a record changed behind sheaf, even by root, is refused with JOURNAL_UNTRUSTED and nothing from it runs', async () => {
      const sql = db().executor;
      await sql.query('create table notes (id int not null auto_increment primary key, body text)');
      await sql.query("insert into notes (body) values ('kept')");
      const stopped = await sheaf(['migrate', '--url', url, '--table', 'notes', '--apply'], {
        SHEAF_MIGRATE_FAILPOINT: 'before-step:1:SIGINT',
      });
      expect(stopped.code).toBe(130);
      const journal = mysqlState(name).in('sheaf_migrations');
      const escalate = `grant all privileges on *.* to ${app.sql} with grant option`;
      await sql.query(`update ${journal} set steps = ? where id = 2`, [
        JSON.stringify([{ describe: 'notes: id int → bigint', sql: escalate, undo: escalate }]),
      ]);
      const notes = await sql.query('show create table notes');

      const message =
        `sheaf: migration #2 in \`sheaf_${name}\`.\`sheaf_migrations\` does not match its HMAC: it was written or ` +
        'changed outside sheaf, so nothing from it was run. Check the tables it may have touched by hand, then ' +
        `remove it: delete from \`sheaf_${name}\`.\`sheaf_migrations\` where id = 2 (JOURNAL_UNTRUSTED)\n`;
      for (const args of [['--table', 'notes', '--apply'], ['--all', '--apply'], ['--abort']]) {
        const refused = await sheaf(['migrate', '--url', url, ...args]);
        expect([args, refused.code, refused.stderr]).toEqual([args, 1, message]);
      }
      await expect(resumeMigration(sql)).rejects.toMatchObject({ code: 'JOURNAL_UNTRUSTED' });
      const status = await sheaf(['migrate', '--url', url, '--status']);
      expect(status.stdout).toMatch(
        new RegExp(
          `^migration #2 of database ${name}: untrusted: its record in \`sheaf_${name}\`\\.\`sheaf_migrations\``,
        ),
      );
      expect(status.stdout).not.toContain('grant');
      const json = JSON.parse((await sheaf(['migrate', '--url', url, '--status', '--json'])).stdout);
      expect(json).toMatchObject({
        state: 'running',
        unfinished: true,
        migration: { id: 2, trusted: false, steps: 0 },
      });

      expect(await globalPrivileges(sql, app)).toEqual([]);
      expect(await sql.query('show create table notes')).toEqual(notes);

      // Cleared by hand as the message says, the journal no longer stands in the way.
      await sql.query(`delete from ${journal} where id = 2`);
      const again = await sheaf(['migrate', '--url', url, '--table', 'notes', '--apply']);
      expect([again.code, again.stderr]).toEqual([0, expect.stringContaining('after the migration')]);
    });

    it('without the state database, --apply is NOT_INSTALLED naming it, and changes nothing', async () => {
      const sql = db().executor;
      const bare = `${name}_bare`;
      await sql.query(`create database \`${bare}\``);
      try {
        const bareUrl = withDatabase(mysqlUrl, bare);
        const connection = await mysql.createConnection({ uri: bareUrl });
        await install(mysql2Executor(connection), { shard: 6 });
        // An install of an earlier version, which kept everything in the application's database.
        await connection.query(`drop database if exists \`sheaf_${bare}\``);
        await connection.query('create table tags (id int not null auto_increment primary key)');
        const [before] = await connection.query('show create table tags');
        const refused = await sheaf(['migrate', '--url', bareUrl, '--all', '--apply']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(new RegExp(`sheaf_${bare}.*run \`sheaf install\`.*\\(NOT_INSTALLED\\)\n$`));
        expect((await connection.query('show create table tags'))[0]).toEqual(before);
        await connection.end();
      } finally {
        await sql.query(`drop database if exists \`${bare}\``);
        await sql.query(`drop database if exists \`sheaf_${bare}\``);
      }
    });
  },
  { only: ['mariadb'] },
);
