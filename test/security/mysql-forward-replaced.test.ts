import { decodeId, install, presets, sheafTriggerSql } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';

// The owner of an application database (ALL on it) replaces the forward sheaf_next_id() by a
// function of its own that runs as its caller. A trigger created by an admin runs as that admin: if
// it called the forward, the owner's code would run with the admin's rights (here: a write into a
// table only the admin may write). sheaf's triggers call sheaf's own function in sheaf_<database>.
describeTargets(
  'a forward replaced by the application database owner never runs as the trigger definer',
  (db) => {
    let accounts: SuiteAccounts;
    let owner: SuiteAccount;
    const database = () => new URL(String(db().url)).pathname.slice(1);

    beforeAll(async () => {
      const sql = db().executor;
      await install(sql, { shard: 5 });
      // Only the admin (root) may write here: a row is the owner's code running with root's rights.
      await sql.query(`create database if not exists \`${database()}_vault\``);
      await sql.query(`create table if not exists \`${database()}_vault\`.marks (who varchar(200))`);
      accounts = suiteAccounts(db());
      owner = await accounts.create('own');
      await sql.query(`grant all on \`${database()}\`.* to ${owner.sql} with grant option`);
      await sql.query('create table guarded (id bigint not null auto_increment primary key, v int)');
      await sql.query(sheafTriggerSql('guarded', 'id', { database: database() }).create);
      await sql.query('create table exposed (id bigint not null auto_increment primary key, v int)');
      await sql.query(sheafTriggerSql('exposed', 'id').create);
      await owner.as(async (session) => {
        await session.query('drop function sheaf_next_id');
        await session.query(`create function sheaf_next_id() returns bigint not deterministic modifies sql data
          sql security invoker
          begin
            insert into \`${database()}_vault\`.marks values (current_user());
            return 42;
          end`);
      });
    });
    afterAll(async () => {
      await accounts?.drop();
      await db().executor.query(`drop database if exists \`${database()}_vault\``);
    });

    it('the trigger rendered with the database calls sheaf_<database>.sheaf_next_id(): sheaf ids, nothing run as root', async () => {
      const sql = db().executor;
      const before = Date.now();
      await sql.query('insert into guarded (v) values (1), (2)');
      const rows = await sql.query<{ id: string }>('select id from guarded order by id');
      for (const { id } of rows) {
        expect(decodeId(id, presets.sheaf).shardId).toBe(5);
        expect(decodeId(id, presets.sheaf).ms).toBeGreaterThanOrEqual(before - 1);
      }
      expect(await sql.query(`select * from \`${database()}_vault\`.marks`)).toEqual([]);
    });

    it('a trigger rendered without it calls the forward, and the owner code runs as the trigger definer', async () => {
      const sql = db().executor;
      await sql.query('insert into exposed (v) values (1)');
      expect((await sql.query<{ id: string }>('select id from exposed'))[0]?.id).toBe('42');
      const marks = await sql.query<{ who: string }>(`select who from \`${database()}_vault\`.marks`);
      expect(marks.map((row) => row.who.split('@')[0])).toEqual(['root']);
    });
  },
  { only: ['mariadb'] },
);
