import {
  decodeId,
  install,
  isSheafError,
  mysql2Executor,
  presets,
  type SqlExecutor,
  sheafTriggerSql,
  sqlVersion,
  uninstall,
} from '@sheaf/core';
import mysql, { type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';

describeTargets(
  'sheaf triggers and the installer on MySQL/MariaDB',
  (db) => {
    it('installs, then does nothing the second time', async () => {
      const first = await install(db().executor, { shard: 3 });
      const all = Array.from({ length: sqlVersion('mysql') }, (_, index) => index + 1);
      expect(first.applied).toEqual(all);
      expect(await install(db().executor, { shard: 3 })).toEqual({ version: sqlVersion('mysql'), applied: [] });
    });

    it('8 racing installers into a fresh database: one applies, all succeed', async () => {
      await uninstall(db().executor);
      const results = await Promise.all(Array.from({ length: 8 }, () => install(db().executor, { shard: 3 })));
      expect(results.filter((result) => result.applied.length > 0)).toHaveLength(1);
    });

    it('renders a trigger with quoted names that fills NULL and 0 but keeps given ids', async () => {
      await db().executor.query('create table `or``ders` (id bigint not null auto_increment primary key, v int)');
      const { create, drop } = sheafTriggerSql('or`ders', 'id');
      expect(create).toContain('`or``ders`');
      await db().executor.query(drop);
      await db().executor.query(create);
      await db().executor.query('insert into `or``ders` (v) values (1)');
      await db().executor.query('insert into `or``ders` (id, v) values (0, 2), (null, 3), (42, 4)');
      const rows = await db().executor.query<{ id: string; v: number }>('select id, v from `or``ders` order by v');
      expect(rows.at(-1)?.id).toBe('42');
      for (const row of rows.slice(0, 3)) expect(decodeId(row.id, presets.sheaf).shardId).toBe(3);
      expectSheafError(() => sheafTriggerSql('', 'id'), 'INVALID_ARGUMENT');
    });

    it('insertId of a single-row insert is the sheaf id; RETURNING gives every row of a multi-row insert', async () => {
      await db().executor.query('create table items (id bigint not null auto_increment primary key, v int)');
      await db().executor.query(sheafTriggerSql('items', 'id').create);
      const connection = await mysql.createConnection({
        uri: String(db().url),
        supportBigNumbers: true,
        bigNumberStrings: true,
      });
      try {
        const [header] = await connection.query<ResultSetHeader>('insert into items (v) values (1)');
        const [[stored]] = await connection.query<RowDataPacket[]>('select max(id) as id from items');
        expect(String(header.insertId)).toBe(String(stored?.id));
        expect(decodeId(String(header.insertId), presets.sheaf).shardId).toBe(3);
        // Multi-row: RETURNING gives every id.
        const [many] = await connection.query<RowDataPacket[]>(
          'insert into items (v) values (2), (3), (4) returning id',
        );
        expect(new Set(many.map((row) => row.id)).size).toBe(3);
        const [[lastInsertId]] = await connection.query<RowDataPacket[]>('select last_insert_id() as id');
        expect(String(lastInsertId?.id)).toBe('0');
        // Without RETURNING, the header names the last row's id (AUTO_INCREMENT alone names the first).
        const [plain] = await connection.query<ResultSetHeader>('insert into items (v) values (5), (6), (7)');
        const [rows] = await connection.query<RowDataPacket[]>('select id from items where v >= 5 order by v');
        expect(rows.map((row) => String(row.id))).toHaveLength(3);
        expect(String(plain.insertId)).toBe(String(rows[2]?.id));
      } finally {
        await connection.end();
      }
    });

    it('8 concurrent inserters through the trigger: every row gets a unique id', async () => {
      await db().executor.query('create table busy (id bigint not null auto_increment primary key, w int, i int)');
      await db().executor.query(sheafTriggerSql('busy', 'id').create);
      const sessions = await db().sessions(8);
      await Promise.all(
        sessions.map(async (session, w) => {
          for (let i = 0; i < 40; i++) {
            const values = Array.from({ length: 25 }, (_, j) => `(${w}, ${i * 25 + j})`).join(', ');
            await session.query(`insert into busy (w, i) values ${values}`);
          }
        }),
      );
      const [count] = await db().executor.query<{ n: string; d: string }>(
        'select count(*) as n, count(distinct id) as d from busy',
      );
      expect(Number(count?.n)).toBe(8_000);
      expect(Number(count?.d)).toBe(8_000);
      // Within one inserter, ids grow in insert order.
      const ordered = await db().executor.query<{ bad: string }>(
        `select count(*) as bad from busy a join busy b on a.w = b.w and a.i < b.i and a.id > b.id`,
      );
      expect(Number(ordered[0]?.bad)).toBe(0);
    });

    it("ids are never before their statement's start and at most a few ms ahead of the clock", async () => {
      await db().executor.query('create table timed (id bigint not null auto_increment primary key, v int)');
      await db().executor.query(sheafTriggerSql('timed', 'id').create);
      const [session] = await db().sessions(1);
      const seen: { id: string; before: number; after: number }[] = [];
      const end = Date.now() + 300;
      for (let i = 0; Date.now() < end; i++) {
        const before = Date.now();
        const rows = i % 2 === 0 ? 1 : 50;
        const values = Array.from({ length: rows }, () => '(1)').join(', ');
        const got = await session!.query<{ id: string }>(`insert into timed (v) values ${values} returning id`);
        const after = Date.now();
        for (const row of got) seen.push({ id: row.id, before, after });
      }
      for (const { id, before, after } of seen) {
        const { ms } = decodeId(id, presets.sheaf);
        // A hot session's chunk leads the clock by up to 7 ms; 1 ms of slack for rounding.
        expect(ms).toBeGreaterThanOrEqual(before - 1);
        expect(ms).toBeLessThanOrEqual(after + 8);
      }
    });

    it("a session that switches databases never takes ids from the other database's chunk", async () => {
      const other = `${new URL(String(db().url)).pathname.slice(1)}_b`;
      const admin = await mysql.createConnection({
        uri: String(db().url),
        supportBigNumbers: true,
        bigNumberStrings: true,
      });
      try {
        await admin.query(`create database ${other}`);
        await admin.query(`use ${other}`);
        await install(mysql2Executor(admin), { shard: 5 });
        await admin.query('create table hop (id bigint not null auto_increment primary key, v int)');
        await admin.query(sheafTriggerSql('hop', 'id').create);
        await admin.query(`use ${new URL(String(db().url)).pathname.slice(1)}`);
        await admin.query('create table hop (id bigint not null auto_increment primary key, v int)');
        await admin.query(sheafTriggerSql('hop', 'id').create);
        const here = new URL(String(db().url)).pathname.slice(1);
        // A fixed statement time keeps the trigger's chunk valid by time: only the database check
        // keeps one database's chunk out of the other.
        await admin.query('set timestamp = unix_timestamp(now(6))');
        for (let i = 0; i < 20; i++) {
          await admin.query(`use ${i % 2 === 0 ? here : other}`);
          await admin.query('insert into hop (v) values (1), (2), (3)');
        }
        const shards = async (schema: string) => {
          const [rows] = await admin.query<RowDataPacket[]>(`select id from ${schema}.hop`);
          return new Set(rows.map((row) => decodeId(String(row.id), presets.sheaf).shardId));
        };
        expect(await shards(here)).toEqual(new Set([3]));
        expect(await shards(other)).toEqual(new Set([5]));
      } finally {
        await admin.query(`drop database if exists ${other}`);
        await admin.query(`drop database if exists sheaf_${other}`);
        await admin.end();
      }
    });

    it('refuses to uninstall while a trigger calls sheaf, naming it; force drops the trigger, keeps rows', async () => {
      const error = await uninstall(db().executor).catch((caught: unknown) => caught);
      expect(isSheafError(error, 'IN_USE')).toBe(true);
      expect(String((error as Error).message)).toContain('busy');
      const triggers = await db().executor.query<{ n: string }>(
        'select trigger_name as n from information_schema.triggers where trigger_schema = database()',
      );
      expect(triggers.length).toBeGreaterThan(0);
      // Each trigger goes in a statement of its own: MySQL 8 cannot prepare DROP TRIGGER (error 1295).
      const sent: string[] = [];
      const recording = (inner: SqlExecutor): SqlExecutor => ({
        dialect: inner.dialect,
        query: (sql, params) => {
          sent.push(sql);
          return inner.query(sql, params);
        },
        session: (fn) => inner.session((session) => fn(recording(session))),
      });
      await uninstall(recording(db().executor), { force: true });
      expect(sent.filter((sql) => /^drop trigger /.test(sql))).toHaveLength(triggers.length);
      expect(sent.filter((sql) => /\bprepare\b/.test(sql))).toEqual([]);
      const [left] = await db().executor.query<{ n: string }>(
        `select count(*) as n from information_schema.routines where routine_schema = database()
          and routine_name like 'sheaf%'`,
      );
      expect(Number(left?.n)).toBe(0);
      const [leftTriggers] = await db().executor.query<{ n: string }>(
        'select count(*) as n from information_schema.triggers where trigger_schema = database()',
      );
      expect(Number(leftTriggers?.n)).toBe(0);
      const [rows] = await db().executor.query<{ n: string }>('select count(*) as n from busy');
      expect(Number(rows?.n)).toBe(8_000);
      await db().executor.query('insert into busy (id, w, i) values (1, 0, 0)');
    });

    it('maps MySQL error 1418 (binary logging refuses a function) to SERVER_CONFIG', async () => {
      const { fromDatabaseError } = await import('@sheaf/core');
      const mapped = fromDatabaseError(
        Object.assign(new Error('This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA'), {
          errno: 1418,
          sqlState: 'HY000',
        }),
      );
      expect(isSheafError(mapped, 'SERVER_CONFIG')).toBe(true);
      await expectSheafRejection(Promise.reject(mapped), 'SERVER_CONFIG', 'log_bin_trust_function_creators');
    });
  },
  { only: ['mariadb'] },
);
