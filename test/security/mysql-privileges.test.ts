import {
  decodeId,
  encodeId,
  grant,
  install,
  mysql2Executor,
  mysqlAppGrants,
  presets,
  type SqlExecutor,
  sheafTriggerSql,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';
import { queryState } from '../support/state-sql.js';

const shard = 4;
const msOf = (id: unknown) => decodeId(String(id), presets.sheaf).ms;
const shardOf = (id: unknown) => decodeId(String(id), presets.sheaf).shardId;
const idAt = (time: number, shardId: number, sequence: number) =>
  encodeId({ time, shardId, sequence }, presets.sheaf).toString();

/** The MySQL error number a refused statement failed with; undefined when it succeeded. */
async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { errno?: number; cause?: { errno?: number } },
  );
  return error && (error.errno ?? error.cause?.errno ?? -1);
}

const settings = async (sql: SqlExecutor) => {
  const [row] = await queryState<{ shard_id: unknown; test_clock: unknown }>(
    sql,
    'select shard_id, test_clock from {state}.sheaf_settings',
  );
  return { shard: Number(row?.shard_id), testClock: Number(row?.test_clock) };
};

/** Routines whose body reads the session's test clock. */
const clockReaders = async (sql: SqlExecutor) =>
  (
    await queryState<{ name: string }>(
      sql,
      `select routine_name as name from information_schema.routines
        where routine_schema = {state_text} and routine_definition like '%@sheaf\\_clock%' order by 1`,
    )
  ).map((row) => row.name);

/** The admin procedures, unqualified: since 0013 they are in `sheaf_<database>` alone. */
const adminCalls = [
  "sheaf_configure(9, 'sheaf', 1704067200000, 41, 12, 10, false)",
  "sheaf_configure(4, 'sheaf', 1704067200000, 41, 12, 10, true)",
  "sheaf_create_ticket('x', 1, 1)",
  "sheaf_create_segment('x', 10, 0, null)",
  "sheaf_create_segment_class('x', 2, 0, 10, 0, null)",
  "sheaf_adopt_ticket('x', 1, 1, 0, 0)",
  'sheaf_add_shard(9)',
];

/** Every id is of shard 4 and taken no earlier than `before`, nor far ahead of now. */
function expectFresh(ids: readonly unknown[], before: number): void {
  for (const id of ids) {
    expect(shardOf(id), String(id)).toBe(shard);
    expect(msOf(id), String(id)).toBeGreaterThanOrEqual(before - 1);
    expect(msOf(id), String(id)).toBeLessThanOrEqual(Date.now() + 50);
  }
}

// The least-privilege findings on MySQL/MariaDB, replayed with real accounts on a production
// install: `exec` has EXECUTE on the whole database (the common grant), `app` exactly
// mysqlAppGrants, `inserter` only INSERT and SELECT on a table with a sheaf trigger.
describeTargets(
  'least privilege on MySQL/MariaDB',
  (db) => {
    let accounts: SuiteAccounts;
    let exec: SuiteAccount;
    let app: SuiteAccount;
    let inserter: SuiteAccount;
    const database = () => new URL(String(db().url)).pathname.slice(1);

    beforeAll(async () => {
      const sql = db().executor;
      await install(sql, { shard });
      await sql.query('create table orders (id bigint not null auto_increment primary key, v int)');
      await sql.query(sheafTriggerSql('orders', 'id').create);
      await queryState(sql, "call {state}.sheaf_create_ticket('app_t', 1, 1)");
      await queryState(sql, "call {state}.sheaf_create_segment('app_s', 100, 0, null)");
      accounts = suiteAccounts(db());
      exec = await accounts.create('exec');
      app = await accounts.create('app');
      inserter = await accounts.create('ins');
      await sql.query(`grant execute on \`${database()}\`.* to ${exec.sql}`);
      await queryState(sql, 'call {state}.sheaf_add_shard(7)');
      await queryState(sql, 'call {state}.sheaf_add_shard(2)');
      const granted = await grant(sql, app.name);
      expect(granted.statements).toEqual(mysqlAppGrants(app.name, database()));
      for (const account of [exec, app, inserter]) await sql.query(`grant insert, select on orders to ${account.sql}`);
    });
    afterAll(async () => {
      await accounts?.drop();
    });

    it('EXECUTE on the database does not let an account configure sheaf or create tickets and segments', async () => {
      await exec.as(async (session) => {
        for (const statement of adminCalls) {
          // ER_PROCACCESS_DENIED_ERROR: EXECUTE on the application's database gives no right in sheaf's.
          expect(await refusal(session.query(`call \`sheaf_${database()}\`.${statement}`)), statement).toBe(1370);
          // ER_SP_DOES_NOT_EXIST: since 0013 no routine of the name in the application's database.
          expect(await refusal(session.query(`call ${statement}`)), statement).toBe(1305);
        }
      });
      expect(await settings(db().executor)).toEqual({ shard, testClock: 0 });
    });

    it('a session clock set to 2093 moves nothing: ids follow the real clock', async () => {
      await exec.as(async (session) => {
        await session
          .query(`call \`sheaf_${database()}\`.sheaf_configure(4, 'sheaf', 1704067200000, 41, 12, 10, true)`)
          .catch(() => undefined);
        await session.query('set @sheaf_clock_ms = ?, @sheaf_clock_offset_ms = 0, @sheaf_id_next = null', [
          Date.UTC(2093, 0, 1),
        ]);
        const before = Date.now();
        const inserted = await session.query<{ id: string }>('insert into orders (v) values (1), (2) returning id');
        const [selected] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        expectFresh([...inserted.map((row) => row.id), selected?.id], before);
      });
      expect(await settings(db().executor)).toEqual({ shard, testClock: 0 });
    });

    it('a production install has no code path that reads the session clock; a testClock install does', async () => {
      const sql = db().executor;
      const beforeEpoch = (session: SqlExecutor) =>
        session
          .query('set @sheaf_clock_ms = 1000, @sheaf_id_next = null')
          .then(() => session.query('select sheaf_next_id()'))
          .finally(() => session.query('set @sheaf_clock_ms = null'));
      expect(await clockReaders(sql)).toEqual([]);
      await sql.session(beforeEpoch);
      // sheaf_configure records the flag; the production function still ignores the variables.
      await queryState(sql, "call {state}.sheaf_configure(4, 'sheaf', 1704067200000, 41, 12, 10, true)");
      expect(await settings(sql)).toEqual({ shard, testClock: 1 });
      expect(await clockReaders(sql)).toEqual([]);
      await sql.session(beforeEpoch);

      await install(sql, { testClock: true });
      // Since 0010 the claim clock is in the function that claims chunks, which sheaf_next_id() calls.
      expect(await clockReaders(sql)).toEqual(['sheaf__claim_chunk']);
      await expectSheafRejection(sql.session(beforeEpoch), 'TIME_BEFORE_EPOCH', '1970-01-01T00:00:01.000Z');
      await install(sql, { testClock: false });
      expect(await clockReaders(sql)).toEqual([]);
      expect(await settings(sql)).toEqual({ shard, testClock: 0 });
      await sql.session(beforeEpoch);
      // The application still calls sheaf_next_id(), which runs the replaced function as its definer.
      await app.as((session) => session.query('select sheaf_next_id()'));
    });

    it('forged session variables give neither an insert through the trigger nor sheaf_next_id() a wrong id', async () => {
      const forge =
        'set @sheaf_id_next = 42, @sheaf_id_end = 100000, @sheaf_id_until = unix_timestamp() + 3600, ' +
        '@sheaf_id_db = database()';
      for (const account of [app, exec]) {
        await account.as(async (session) => {
          await session.query(forge);
          const before = Date.now();
          const inserted = await session.query<{ id: string }>(
            'insert into orders (v) values (1), (2), (3) returning id',
          );
          await session.query(forge);
          const [selected] = await session.query<{ id: string }>('select sheaf_next_id() as id');
          expectFresh([...inserted.map((row) => row.id), selected?.id], before);
        });
      }
    });

    it('a cached id of another shard, of a past millisecond, outside the layout or opening a chunk is refused; a wrong tick hint costs a claim', async () => {
      await app.as(async (session) => {
        const now = Date.now();
        const forged = [
          idAt(now + 2, 9, 5),
          idAt(now - 1000, shard, 5),
          '-5',
          "'abc'",
          `'${idAt(now + 2, shard, 5)}abc'`,
          // The first id of a chunk is only ever handed out by the claim that took the chunk.
          idAt(now + 3000, shard, 256),
        ];
        // @sheaf_id_tick only hints where the counter is: a claim it sends the wrong way claims again.
        const ticks = ["'x'", '99999999999999'];
        for (const next of forged) {
          for (const [index, take] of [
            'select sheaf_next_id() as id',
            'insert into orders (v) values (1) returning id',
          ].entries()) {
            await session.query(
              `set @sheaf_id_next = ${next}, @sheaf_id_end = ${/^\d+$/.test(next) ? BigInt(next) + 100n : 100}, ` +
                `@sheaf_id_until = unix_timestamp() + 3600, @sheaf_id_db = database(), @sheaf_id_tick = ${ticks[index]}`,
            );
            // The counter falls behind the clock: a claim that trusted the hint would be in the past.
            await new Promise((resolve) => setTimeout(resolve, 15));
            const before = Date.now();
            const [row] = await session.query<{ id: string }>(take);
            expect(row?.id, `${take} after @sheaf_id_next = ${next}`).not.toBe(next.replace(/\D/g, ''));
            expectFresh([row?.id], before);
          }
        }
        // A chunk this session claimed itself, once the clock has left its millisecond.
        const [taken] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        while (Date.now() <= msOf(taken?.id) + 2) await new Promise((resolve) => setTimeout(resolve, 2));
        const before = Date.now();
        const [later] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        expect(BigInt(String(later?.id))).not.toBe(BigInt(String(taken?.id)) + 1n);
        expectFresh([later?.id], before);
      });
    });

    it("after sheaf_configure changes the shard, no session's cached chunk of the old shard is used", async () => {
      // In a database of its own: a claim clock an hour ahead keeps every chunk valid by the real
      // clock, which the fast path judges by, so only the shard check can refuse it.
      const name = `${database()}_cfg`;
      const options = { uri: String(db().url), supportBigNumbers: true, bigNumberStrings: true };
      const [owner, user] = [await mysql.createConnection(options), await mysql.createConnection(options)];
      try {
        await owner.query(`create database ${name}`);
        for (const connection of [owner, user]) await connection.query(`use ${name}`);
        const [admin, session] = [mysql2Executor(owner), mysql2Executor(user)];
        await install(admin, { shard, testClock: true });
        await admin.query('create table orders (id bigint not null auto_increment primary key, v int)');
        await admin.query(sheafTriggerSql('orders', 'id').create);
        await session.query('set @sheaf_clock_ms = ?', [Date.now() + 3_600_000]);
        const [first] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        expect(shardOf(first?.id)).toBe(shard);
        await queryState(admin, "call {state}.sheaf_configure(6, 'sheaf', 1704067200000, 41, 12, 10, true)");
        const inserted = await session.query<{ id: string }>('insert into orders (v) values (1), (2) returning id');
        const [selected] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        // The same with an id of the old shard written into the variables, as a session could.
        const forge = () => {
          const next = idAt(Date.now() + 2, shard, 5);
          return session.query(
            `set @sheaf_id_next = ${next}, @sheaf_id_end = ${next} + 100, @sheaf_id_until = unix_timestamp() + 3600`,
          );
        };
        await forge();
        const [forgedSelect] = await session.query<{ id: string }>('select sheaf_next_id() as id');
        await forge();
        const forgedInsert = await session.query<{ id: string }>('insert into orders (v) values (1) returning id');
        const ids = [...inserted, selected, forgedSelect, ...forgedInsert].map((row) => row?.id);
        for (const id of ids) expect(shardOf(id), String(id)).toBe(6);
      } finally {
        await owner.query(`drop database if exists ${name}`);
        await owner.query(`drop database if exists sheaf_${name}`);
        await Promise.all([owner.end(), user.end()]);
      }
    });

    it('mysqlAppGrants: ids, tickets, segments, leases and decoding work; configuring and the tables do not', async () => {
      const grants = await db().executor.query<Record<string, string>>(`show grants for ${app.sql}`);
      const lines = grants.map((row) => Object.values(row)[0] as string);
      expect(lines.filter((line) => / ON `[^`]+`\.\* /.test(line))).toEqual([]);
      await app.as(async (session) => {
        const [ids] = await session.query<Record<string, string>>(
          'select sheaf_next_id() as a, sheaf_next_shard_id(7) as b, sheaf_next_ticket(?) as t',
          ['app_t'],
        );
        expect(shardOf(ids?.a)).toBe(shard);
        expect(shardOf(ids?.b)).toBe(7);
        expect(Number(ids?.t)).toBeGreaterThan(0);
        expect(await session.query('call sheaf_next_ids(3)')).toHaveLength(3);
        const other = await session.query<{ id: string }>('call sheaf_next_shard_ids(3, 2)');
        expect(other.map((row) => shardOf(row.id))).toEqual([2, 2, 2]);
        const [range] = await session.query<{ first_id: string }>("call sheaf_alloc_segment('app_s', null)");
        expect(Number(range?.first_id)).toBeGreaterThan(0);
        const [lease] = await session.query<{ worker_id: number; lease_token: string }>(
          "call sheaf_lease_worker('app', 10000, 7)",
        );
        await session.query('select sheaf_heartbeat_worker(?, ?, 0, 10000)', [lease?.worker_id, lease?.lease_token]);
        await session.query('select sheaf_release_worker(?, ?, 0)', [lease?.worker_id, lease?.lease_token]);
        const [again] = await session.query<{ worker_id: number; lease_token: string }>(
          "call sheaf_lease_worker('app', 10000, 7)",
        );
        const [closed] = await session.query<{ closed: number }>('select sheaf_close_worker(?, ?, 5) as closed', [
          again?.worker_id,
          again?.lease_token,
        ]);
        expect(Number(closed?.closed)).toBe(1);
        // A shard this database was not given: another database may issue it.
        expect(await refusal(session.query('select sheaf_next_shard_id(9)'))).toBe(30015);
        expect(await refusal(session.query('call sheaf_next_shard_ids(3, 9)'))).toBe(30015);
        const [decoded] = await session.query<Record<string, string>>(
          `select sheaf_decode_id(?) as d, sheaf_id_shard(?) as s, sheaf_id_sequence(?) as q, sheaf_id_time(?) as t,
            sheaf_id_floor('2024-06-01') as f, sheaf_id_ceiling('2024-06-01') as c, sheaf_encode_id('2024-06-01', 3, 1) as e`,
          [ids?.a, ids?.a, ids?.a, ids?.a],
        );
        expect(JSON.parse(String(decoded?.d)).shard_id).toBe(shard);
        expect(shardOf(decoded?.e)).toBe(3);
        for (const statement of [
          ...adminCalls.map((call) => `call \`sheaf_${database()}\`.${call}`),
          `call \`sheaf_${database()}\`.sheaf__fail(30001, 'x')`,
          `select \`sheaf_${database()}\`.sheaf_next_id()`,
        ]) {
          // ER_PROCACCESS_DENIED_ERROR: no EXECUTE on them.
          expect(await refusal(session.query(statement)), statement).toBe(1370);
        }
        const state = `\`sheaf_${database()}\``;
        for (const statement of [
          `select * from ${state}.sheaf_settings`,
          `update ${state}.sheaf_settings set shard_id = 9`,
          `insert into ${state}.sheaf_chunks (k) values (null)`,
          `select lease_token from ${state}.sheaf_workers`,
          `update ${state}.sheaf_segments set max_id = 0`,
          `delete from ${state}.sheaf_tickets`,
        ]) {
          expect(await refusal(session.query(statement)), statement).toBe(1142);
        }
      });
      expect(await settings(db().executor)).toEqual({ shard, testClock: 0 });
    });

    it("admins use sheaf's owner account: EXECUTE on the database does not configure, and it has no admin routine", async () => {
      const admin = await accounts.create('admin');
      await db().executor.query(`grant execute on \`${database()}\`.* to ${admin.sql}`);
      await admin.as(async (session) => {
        for (const statement of adminCalls) {
          expect(await refusal(session.query(`call \`sheaf_${database()}\`.${statement}`)), statement).toBe(1370);
          expect(await refusal(session.query(`call ${statement}`)), statement).toBe(1305);
        }
      });
      expect(await settings(db().executor)).toEqual({ shard, testClock: 0 });
      // The account that installed sheaf administers it in sheaf's own database.
      const owner = db().executor;
      await queryState(owner, "call {state}.sheaf_configure(5, 'sheaf', 1704067200000, 41, 12, 10, false)");
      expect(await settings(owner)).toEqual({ shard: 5, testClock: 0 });
      await expectSheafRejection(
        queryState(owner, "call {state}.sheaf_configure(5, 'twitter', 1288834974657, 41, 10, 12, false)"),
        'LAYOUT_LOCKED',
      );
      await expectSheafRejection(queryState(owner, "call {state}.sheaf_create_ticket('', 1, 1)"), 'INVALID_ARGUMENT');
      await queryState(owner, "call {state}.sheaf_create_ticket('admin_t', 2, 1)");
      await queryState(owner, "call {state}.sheaf_create_segment('admin_s', 10, 0, null)");
      await queryState(owner, 'call {state}.sheaf_add_shard(11)');
      await queryState(owner, "call {state}.sheaf_configure(4, 'sheaf', 1704067200000, 41, 12, 10, false)");
      const [created] = await queryState<{ tickets: unknown; segments: unknown; shards: unknown }>(
        owner,
        `select (select count(*) from {state}.sheaf_tickets where name = 'admin_t') as tickets,
          (select count(*) from {state}.sheaf_segments where biz_tag = 'admin_s') as segments,
          (select count(*) from {state}.sheaf_logical_shards where shard_id = 11) as shards`,
      );
      expect([created?.tickets, created?.segments, created?.shards].map(Number)).toEqual([1, 1, 1]);
      expect(await settings(owner)).toEqual({ shard, testClock: 0 });
    });

    it('an account with INSERT on its table inserts through a sheaf trigger without any sheaf privilege', async () => {
      await inserter.as(async (session) => {
        const before = Date.now();
        const rows = await session.query<{ id: string }>('insert into orders (v) values (1), (2) returning id');
        expectFresh(
          rows.map((row) => row.id),
          before,
        );
        expect(await refusal(session.query('select sheaf_next_id()'))).toBe(1370);
      });
    });

    it('pools: resetOnRelease clears what a borrower forged; without it, a fixed timestamp is the documented gap', async () => {
      // Forges even the statement mark, which needs a fixed `timestamp`: only the trigger's
      // in-statement path trusts it; sheaf_next_id() checks everything again.
      const forge = async (session: mysql.PoolConnection) => {
        await session.query('set timestamp = unix_timestamp(now(6))');
        await session.query(
          'set @sheaf_id_stmt = @@timestamp, @sheaf_id_next = 42, @sheaf_id_end = 100000, @sheaf_id_db = database()',
        );
      };
      for (const resetOnRelease of [true, false]) {
        const pool = mysql.createPool({
          ...app.login,
          connectionLimit: 1,
          resetOnRelease,
          supportBigNumbers: true,
          bigNumberStrings: true,
        });
        try {
          const first = await pool.getConnection();
          await forge(first);
          first.release();
          const second = await pool.getConnection();
          const [inserted] = await second.query<mysql.RowDataPacket[]>(
            'insert into orders (v) values (1) returning id',
          );
          if (resetOnRelease) expect(shardOf(inserted[0]?.id)).toBe(shard);
          else expect(String(inserted[0]?.id)).toBe('42');
          const [selected] = await second.query<mysql.RowDataPacket[]>('select sheaf_next_id() as id');
          expect(shardOf(selected[0]?.id)).toBe(shard);
          second.release();
        } finally {
          await pool.end();
        }
      }
    });
  },
  { only: ['mariadb'] },
);
