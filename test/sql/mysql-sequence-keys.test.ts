// What MariaDB 10.11 does with a key taken from a SEQUENCE by the column's DEFAULT (no trigger): the
// facts on which docs/sql/mysql.md (Keys without a trigger) rests its decision to keep the trigger.
// Each test states one behaviour of the server and fails when a server behaves otherwise.
import { randomBytes } from 'node:crypto';
import mysql, { type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createScratchGalera, galeraMissing, type ScratchGalera } from '../support/scratch-galera.js';
import { createScratchMariadb, mariadbMissing, type ScratchMariadb } from '../support/scratch-mariadb.js';
import { selectedTargets } from '../support/targets.js';

const options = { supportBigNumbers: true, bigNumberStrings: true, multipleStatements: false } as const;

/** The server's error number of a rejected statement, or 'none' when it succeeded. */
async function errno(run: Promise<unknown>): Promise<number | 'none'> {
  try {
    await run;
    return 'none';
  } catch (error) {
    return (error as { errno?: number }).errno ?? -1;
  }
}

const one = async (connection: mysql.Connection, sql: string) => {
  const [rows] = await connection.query<RowDataPacket[]>(sql);
  return rows[0] as Record<string, string | null>;
};

describeTargets(
  'sequence keys on MariaDB: what a DEFAULT NEXTVAL(…) key can and cannot do',
  (db) => {
    let root: mysql.Connection;
    let other: mysql.Connection;
    // Where sheaf keeps state an application's grants do not reach (docs/sql/mysql.md).
    let state: string;

    beforeAll(async () => {
      root = await mysql.createConnection({ uri: String(db().url), ...options });
      other = await mysql.createConnection({ uri: String(db().url), ...options });
      const [[current]] = await root.query<RowDataPacket[]>('select database() as name');
      state = `sheaf_${current?.name}`;
      await root.query(`create database \`${state}\``);
    });

    afterAll(async () => {
      await root?.query(`drop database if exists \`${state}\``);
      await root?.end();
      await other?.end();
    });

    it('a DEFAULT takes NEXTVAL and expressions of it, each reference taking a value of its own; no stored function, SETVAL of literals only', async () => {
      await root.query('create sequence d_s start with 1 nocache');
      await root.query('create table d_plain (id bigint primary key default nextval(d_s), v int)');
      await root.query('insert into d_plain (v) values (1), (2)');
      const [plain] = await root.query<RowDataPacket[]>('select id from d_plain order by id');
      expect(plain.map((row) => row.id)).toEqual(['1', '2']);
      // Two references in one row: two values (3 and 4), so n + (n >> s) · k cannot be written
      // with NEXTVAL twice; 3 + (4 >> 1) · 1000 = 2003.
      await root.query(
        'create table d_twice (id bigint primary key default (nextval(d_s) + (nextval(d_s) >> 1) * 1000), v int)',
      );
      await root.query('insert into d_twice (v) values (1)');
      expect((await one(root, 'select id from d_twice')).id).toBe('2003');
      // LASTVAL after NEXTVAL in the same expression reads the value just taken (left to right).
      await root.query(
        'create table d_last (id bigint primary key default (nextval(d_s) + (lastval(d_s) >> 1) * 1000), v int)',
      );
      await root.query('insert into d_last (v) values (1)');
      expect((await one(root, 'select id from d_last')).id).toBe(String(5 + (5 >> 1) * 1000));
      // An invisible column before the key holds the value once; the key's DEFAULT reads it.
      await root.query(
        'create table d_inv (n bigint invisible default nextval(d_s), id bigint primary key default (n + (n >> 1) * 1000), v int)',
      );
      await root.query('insert into d_inv (v) values (1)');
      expect(await one(root, 'select n, id from d_inv')).toEqual({ n: '6', id: String(6 + 3 * 1000) });
      await root.query('create function d_f() returns bigint not deterministic return 1');
      expect(await errno(root.query('create table d_fn (id bigint primary key default (d_f()), v int)'))).toBe(1901);
      // SETVAL is grammar, not a function: its value must be a literal.
      expect(
        await errno(
          root.query('create table d_set (id bigint primary key default (setval(d_s, unix_timestamp())), v int)'),
        ),
      ).toBe(1064);
      expect(await errno(root.query('select setval(d_s, 1 + 1)'))).toBe(1064);
    });

    it('SETVAL only moves a sequence forward and waits for no transaction; ALTER SEQUENCE waits, and inserts queue behind it', async () => {
      await root.query('create sequence m_s start with 1 cache 1000');
      await root.query('create table m_t (id bigint primary key default nextval(m_s), v int)');
      expect((await one(root, 'select setval(m_s, 1000) as v')).v).toBe('1000');
      expect((await one(root, 'select setval(m_s, 10) as v')).v).toBeNull();
      expect((await one(root, 'select nextval(m_s) as v')).v).toBe('1001');
      await other.query('begin');
      await other.query('insert into m_t (v) values (1)');
      try {
        const started = Date.now();
        expect((await one(root, 'select setval(m_s, 5000) as v')).v).toBe('5000');
        // Waiting for the open transaction would take innodb_lock_wait_timeout (50 s) and more.
        expect(Date.now() - started).toBeLessThan(10_000);
        // ALTER needs the metadata lock the open transaction holds shared.
        await root.query('set session lock_wait_timeout = 1');
        expect(await errno(root.query('alter sequence m_s maxvalue 100000000'))).toBe(1205);
        // While an ALTER waits, a plain insert through the DEFAULT waits behind it.
        const third = await mysql.createConnection({ uri: String(db().url), ...options });
        try {
          await third.query('set session lock_wait_timeout = 5');
          const alterer = (await one(third, 'select connection_id() as id')).id;
          const altering = errno(third.query('alter sequence m_s maxvalue 100000000'));
          await eventually(
            async () => {
              const [rows] = await root.query<RowDataPacket[]>(
                "select 1 from information_schema.processlist where id = ? and state like 'Waiting for%metadata lock'",
                [alterer],
              );
              return rows.length > 0;
            },
            4_000,
            'the ALTER to wait for the metadata lock',
          );
          const queued = Date.now();
          await root.query('set session lock_wait_timeout = 10');
          await root.query('insert into m_t (v) values (2)');
          expect(Date.now() - queued).toBeGreaterThan(1_500);
          expect(await altering).toBe(1205);
        } finally {
          await third.end();
        }
      } finally {
        await root.query('set session lock_wait_timeout = default');
        await other.query('commit');
      }
    });

    it('an account that inserts through a NEXTVAL default needs INSERT on the sequence, and with it moves the sequence back or anywhere ahead', async () => {
      await root.query(`create sequence \`${state}\`.p_s start with 1000 cache 1000`);
      await root.query(`create table p_t (id bigint primary key default nextval(\`${state}\`.p_s), v int)`);
      await root.query(`create table p_u (id bigint primary key default nextval(\`${state}\`.p_s), v int)`);
      const user = `sheaf_seq_${randomBytes(4).toString('hex')}`;
      const password = randomBytes(12).toString('hex');
      const [[current]] = await root.query<RowDataPacket[]>('select database() as name');
      const url = new URL(String(db().url));
      await root.query(`create user '${user}'@'%' identified by '${password}'`);
      try {
        // What applications get on their database; sheaf's state is beside it.
        await root.query(`grant select, insert, update, delete, execute on \`${current?.name}\`.* to '${user}'@'%'`);
        const app = await mysql.createConnection({
          host: url.hostname,
          port: Number(url.port || 3306),
          user,
          password,
          database: String(current?.name),
          ...options,
        });
        try {
          expect(await errno(app.query('insert into p_t (v) values (1)'))).toBe(1142);
          // The least a NEXTVAL default runs with: SELECT, and INSERT on one column.
          await root.query(`grant select, insert (next_not_cached_value) on \`${state}\`.p_s to '${user}'@'%'`);
          await app.changeUser({ user, password, database: String(current?.name) });
          await app.query('insert into p_t (v) values (1)');
          // It cannot rewrite the row, but SETVAL moves the sequence as far ahead as it likes.
          expect(await errno(app.query(`insert into \`${state}\`.p_s (next_not_cached_value) values (1)`))).not.toBe(
            'none',
          );
          expect((await one(app, `select setval(\`${state}\`.p_s, 4000000000000000000) as v`)).v).toBe(
            '4000000000000000000',
          );
          await app.query('insert into p_t (v) values (2)');
          expect((await one(root, 'select max(id) as id from p_t')).id).toBe('4000000000000000001');
          // With INSERT on the whole sequence it also moves it back: ids are taken again.
          await root.query(`grant insert on \`${state}\`.p_s to '${user}'@'%'`);
          await app.changeUser({ user, password, database: String(current?.name) });
          await app.query(`insert into \`${state}\`.p_s values (1000, 1, 9223372036854775806, 1, 1, 1000, 0, 0)`);
          await app.query('insert into p_u (v) values (1)');
          const [[again]] = await root.query<RowDataPacket[]>('select count(*) as n from p_u join p_t using (id)');
          expect(again?.n).toBe('1');
        } finally {
          await app.end();
        }
      } finally {
        await root.query(`drop user '${user}'@'%'`);
      }
    });

    it('the driver reports insertId 0 for a NEXTVAL key, and an AUTO_INCREMENT column takes no DEFAULT', async () => {
      await root.query('create sequence i_s start with 500 cache 1000');
      await root.query('create table i_t (id bigint primary key default nextval(i_s), v int)');
      const [result] = await root.query<ResultSetHeader>('insert into i_t (v) values (1)');
      expect(result.insertId).toBe(0);
      expect((await one(root, 'select last_insert_id() as l, lastval(i_s) as s')).l).toBe('0');
      const [returned] = await root.query<RowDataPacket[]>('insert into i_t (v) values (2) returning id');
      expect(returned[0]?.id).toBe('501');
      expect(
        await errno(root.query('create table i_ai (id bigint auto_increment primary key default nextval(i_s), v int)')),
      ).toBe(1067);
    });

    it('an EVENT runs at most once a second', async () => {
      expect(await errno(root.query('create event e_fast on schedule every 100 millisecond do select 1'))).toBe(1064);
    });
  },
  { only: ['mariadb'] },
);

const crashMissing = selectedTargets().includes('mariadb') ? mariadbMissing() : 'mariadb is not in SHEAF_TEST_TARGETS';

describe.skipIf(crashMissing !== undefined)(
  `sequence keys on MariaDB after kill -9 [scratch server${crashMissing ? `: ${crashMissing}` : ''}]`,
  () => {
    let server: ScratchMariadb;

    beforeAll(async () => {
      server = await createScratchMariadb();
    }, 180_000);

    afterAll(() => server?.destroy());

    /** The LSN at which the log ended when the server recovered, from what its error log gained since `logged` characters. */
    const recoveredEnd = (logged: number) => {
      const end = /End of log at LSN=(\d+)/.exec(server.errorLog().slice(logged))?.[1];
      if (end === undefined)
        throw new Error(`the restarted server logged no end of its log: ${server.errorLog().slice(logged)}`);
      return BigInt(end);
    };

    // A sequence's write reaches the disk only when something else flushes the log: a commit, or a
    // checkpoint InnoDB makes on its own (after a start or a recovery, docs:
    // test/support/scratch-mariadb.ts). A trial in which the log survived past the last commit's
    // flush shows nothing about the sequence and is run again; one in which it did not must find
    // the values SELECT NEXTVAL and SETVAL took gone.
    it.each([
      ['nocache', 'nocache'],
      ['cache 1000', 'cache 1000'],
    ])(
      '%s: ids of committed INSERTs are not issued again, values of SELECT NEXTVAL and SETVAL are',
      async (_, option) => {
        const trials: string[] = [];
        for (let trial = 1; trial <= 4; trial++) {
          const name = `${option === 'nocache' ? 'k_nocache' : 'k_cache'}_${trial}`;
          const before = await mysql.createConnection({ uri: server.url, ...options });
          await before.query(`create sequence ${name} ${option}`);
          await before.query(`create table t_${name} (id bigint primary key default nextval(${name}), v int)`);
          const committed: bigint[] = [];
          for (let i = 0; i < 3; i++) {
            const [rows] = await before.query<RowDataPacket[]>(`insert into t_${name} (v) values (1) returning id`);
            committed.push(BigInt(rows[0]?.id));
          }
          const [[flushed]] = await before.query<RowDataPacket[]>("show global status like 'innodb_lsn_flushed'");
          let selected = 0n;
          for (let i = 0; i < 1_500; i++) selected = BigInt((await one(before, `select nextval(${name}) as v`)).v ?? 0);
          expect((await one(before, `select setval(${name}, 1000000) as v`)).v).toBe('1000000');
          before.destroy();
          const logged = server.errorLog().length;
          await server.crash();
          await server.start();
          const end = recoveredEnd(logged);
          trials.push(`log flushed to ${flushed?.Value} after the commits, ended at ${end}`);
          const after = await mysql.createConnection({ uri: server.url, ...options });
          try {
            const first = BigInt((await one(after, `select nextval(${name}) as v`)).v ?? 0);
            expect(first).toBeGreaterThan(committed.at(-1) as bigint);
            if (end > BigInt(flushed?.Value)) continue;
            expect(first).toBeLessThanOrEqual(selected);
            return;
          } finally {
            await after.end();
          }
        }
        expect.fail(`every trial's log outlived its last commit: ${trials.join('; ')}`);
      },
      120_000,
    );
  },
);

const clusterMissing = selectedTargets().includes('mariadb') ? galeraMissing() : 'mariadb is not in SHEAF_TEST_TARGETS';

describe.skipIf(clusterMissing !== undefined)(
  `sequence keys on a Galera cluster [scratch cluster${clusterMissing ? `: ${clusterMissing}` : ''}]`,
  () => {
    let cluster: ScratchGalera;

    beforeAll(async () => {
      cluster = await createScratchGalera(2);
    }, 240_000);

    afterAll(() => cluster?.destroy());

    it('a node refuses a cached sequence that does not take its increment from auto_increment_*, and one outside InnoDB', async () => {
      const node = await mysql.createConnection({ uri: cluster.nodes[0]?.url as string, ...options });
      try {
        await node.query('create database g');
        await node.query('use g');
        expect(await errno(node.query('create sequence g_cache cache 1000'))).toBe(1235);
        expect(await errno(node.query('create sequence g_aria nocache engine = aria'))).toBe(1235);
        expect(await errno(node.query('create sequence g_nocache nocache'))).toBe('none');
        expect(await errno(node.query('create sequence g_zero increment by 0 cache 1000'))).toBe('none');
      } finally {
        await node.end();
      }
    });
  },
);
