// docs/migrate-api.md's example, run as a user's deploy script would on every target: an integer-keyed
// parent and child move onto sheaf ids, the rows and references survive, new rows get sheaf ids.
import { decodeId, install } from '@sheaf/core';
import { inspect, plan } from '@sheaf/migrate';
import { beforeAll, expect, it } from 'vitest';
import { moveToSheafIds } from '../../docs/guides/examples/migrate/from-code.js';
import { describeTargets } from '../support/database.js';

describeTargets('@sheaf/migrate from code', (db, target) => {
  const mysql = target === 'mariadb';
  beforeAll(async () => {
    await install(db().executor, { shard: 3 });
    const key = mysql ? 'int auto_increment primary key' : 'serial primary key';
    await db().executor.query(`create table authors (id ${key}, name text not null)`);
    await db().executor.query(
      `create table books (id ${key}, author_id int not null references authors (id), title text not null)`,
    );
    await db().executor.query("insert into authors (name) values ('ada'), ('grace')");
    await db().executor.query("insert into books (author_id, title) values (1, 'notes'), (2, 'cobol'), (2, 'nanos')");
  });

  it('moves both tables, keeps every row and reference, and new rows get sheaf ids', async () => {
    const lines: string[] = [];
    const after = await moveToSheafIds(db().executor, ['authors', 'books'], (text) => lines.push(text));
    expect(lines.join('')).toMatch(/authors/);
    expect(after.map((table) => [table.table.name, table.rows])).toEqual([
      ['authors', 2n],
      ['books', 3n],
    ]);
    await db().executor.query("insert into authors (name) values ('barbara')");
    const [row] = await db().executor.query<{ id: string | bigint }>("select id from authors where name = 'barbara'");
    expect(decodeId(BigInt(row!.id)).shardId).toBe(3);
    const joined = await db().executor.query<{ title: string }>(
      "select b.title from books b join authors a on a.id = b.author_id where a.name = 'grace' order by b.title",
    );
    expect(joined.map((r) => r.title)).toEqual(['cobol', 'nanos']);
  });

  it('a second run finds nothing left to do', async () => {
    expect(await moveToSheafIds(db().executor, ['authors', 'books'], () => undefined)).toEqual([]);
    expect(plan(await inspect(db().executor, { tables: ['authors'] })).steps).toEqual([]);
  });
});
