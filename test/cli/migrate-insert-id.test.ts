// What an application reads back after inserting into a table `sheaf migrate` moved onto sheaf ids
// on MariaDB, measured with both drivers (docs/migrating-existing-tables.md, "Reading the new id
// back"): the trigger sets the key, so LAST_INSERT_ID() no longer returns it, while the OK packet's
// insertId does for an AUTO_INCREMENT key.
import mariadb from 'mariadb';
import mysql from 'mysql2/promise';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { sheaf } from './run-sheaf.js';

describeTargets(
  'reading new ids back after a MariaDB migration',
  (db) => {
    it('insertId carries the sheaf id, LAST_INSERT_ID() does not; returning and sheaf_next_id() first work', async () => {
      const url = db().url as string;
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      const setup = await mysql.createConnection({ uri: url });
      await setup.query('create table plain (id int not null auto_increment primary key, v int)');
      await setup.query('create table orders (id int not null auto_increment primary key, v int)');
      await setup.query('create table countries (id int not null primary key, v int)');
      await setup.query(`create procedure add_order(in p_v int)
        begin insert into orders (v) values (p_v); select last_insert_id() as id; end`);
      await setup.end();
      const run = await sheaf(['migrate', '--url', url, '--table', 'orders', '--table', 'countries', '--apply']);
      expect(run.code, run.stderr).toBe(0);

      // Big numbers as strings: sheaf ids pass 2^53.
      const app = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
      try {
        const idOf = async (table: string, v: number) =>
          String((await app.query<mysql.RowDataPacket[]>(`select id from ${table} where v = ?`, [v]))[0][0]?.id);
        const lastInsertId = async () =>
          String((await app.query<mysql.RowDataPacket[]>('select last_insert_id() as id'))[0][0]?.id);

        const [plain] = await app.query<mysql.ResultSetHeader>('insert into plain (v) values (1)');
        expect(String(plain.insertId)).toBe('1');
        const [order] = await app.query<mysql.ResultSetHeader>('insert into orders (v) values (2)');
        expect(String(order.insertId)).toBe(await idOf('orders', 2));
        expect(BigInt(await idOf('orders', 2))).toBeGreaterThan(2n ** 53n);
        // Still the earlier insert's id, into another table: the trap.
        expect(await lastInsertId()).toBe('1');
        const [prepared] = await app.execute<mysql.ResultSetHeader>('insert into orders (v) values (?)', [3]);
        expect(String(prepared.insertId)).toBe(await idOf('orders', 3));
        // A multi-row insert: the last row's id.
        const [many] = await app.query<mysql.ResultSetHeader>('insert into orders (v) values (4), (5)');
        expect(String(many.insertId)).toBe(await idOf('orders', 5));
        // A key without AUTO_INCREMENT: the row gets a sheaf id, insertId is 0.
        const [country] = await app.query<mysql.ResultSetHeader>('insert into countries (v) values (6)');
        expect(String(country.insertId)).toBe('0');
        expect(BigInt(await idOf('countries', 6))).toBeGreaterThan(2n ** 53n);
        // What works everywhere: returning, or the id taken first.
        const [returned] = await app.query<mysql.RowDataPacket[]>('insert into countries (v) values (7) returning id');
        expect(String(returned[0]?.id)).toBe(await idOf('countries', 7));
        const [[next]] = await app.query<mysql.RowDataPacket[]>('select sheaf_next_id() as id');
        await app.query('insert into orders (id, v) values (?, 8)', [next?.id]);
        expect(await idOf('orders', 8)).toBe(String(next?.id));
        // In a routine too, LAST_INSERT_ID() after the insert is the session's earlier value.
        const [called] = await app.query<mysql.RowDataPacket[][]>('call add_order(9)');
        expect(String(called[0]?.[0]?.id)).toBe('1');
      } finally {
        await app.end();
      }

      const connector = await mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));
      try {
        const result = await connector.query('insert into orders (v) values (10)');
        const [row] = await connector.query('select id from orders where v = 10');
        expect(BigInt(result.insertId)).toBe(BigInt(row.id));
        const [fresh] = await connector.query('select last_insert_id() as id');
        expect(BigInt(fresh.id)).toBe(0n);
      } finally {
        await connector.end();
      }
    });
  },
  { only: ['mariadb'] },
);
