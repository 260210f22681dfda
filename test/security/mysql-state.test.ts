import { decodeId, install, mysqlAppGrants, presets, type SqlExecutor, sheafTriggerSql } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';
import { type AppDatabase, appDatabase } from '../support/mysql-app-database.js';
import { queryState } from '../support/state-sql.js';

const shard = 4;
const layout = presets.sheaf;
// sheaf_chunks holds four chunks per millisecond: k = tick << 2.
const chunkOf = (ms: number) => BigInt(ms - layout.epoch) << 2n;
const yearAhead = () => chunkOf(Date.now() + 365 * 86_400_000);
const endOfLayout = (BigInt(layout.lastMs - layout.epoch) + 1n) << 2n;

/** The routines 0013 took out of the application's database: kind, name, number of parameters. */
const planted = [
  ['procedure', 'sheaf_configure', 7],
  ['procedure', 'sheaf_add_shard', 1],
  ['procedure', 'sheaf_create_ticket', 3],
  ['procedure', 'sheaf_adopt_ticket', 5],
  ['procedure', 'sheaf_create_segment', 4],
  ['procedure', 'sheaf_create_segment_class', 6],
  ['function', 'sheaf_claim_shard', 4],
  ['function', 'sheaf_release_shard', 3],
] as const;

/** The MySQL error number a refused statement failed with; undefined when it succeeded. */
async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { errno?: number; cause?: { errno?: number } },
  );
  return error && (error.errno ?? error.cause?.errno ?? -1);
}

/** Ids through the application database's forwards and straight from sheaf's own database. */
async function issued(app: AppDatabase, session: SqlExecutor): Promise<string[]> {
  const inserted = await session.query<{ id: string }>('insert into orders (v) values (1), (2) returning id');
  const [forward] = await session.query<{ id: string }>('select sheaf_next_id() as id');
  const batch = await session.query<{ id: string }>('call sheaf_next_ids(3)');
  const direct = await app.root.query<{ id: string }>(`select ${app.stateSql}.sheaf_next_id() as id`);
  const directBatch = await app.root.query<{ id: string }>(`call ${app.stateSql}.sheaf_next_ids(3)`);
  return [...inserted, forward, ...batch, ...direct, ...directBatch].map((row) => String(row?.id));
}

/** Every id is of the configured shard and of now, as other sessions and sheaf itself take them. */
async function expectSheafUnmoved(app: AppDatabase, settings: unknown): Promise<void> {
  expect(await app.root.query(`select * from ${app.stateSql}.sheaf_settings`)).toEqual(settings);
  const before = Date.now();
  const ids = await app.as(null, (session) => issued(app, session));
  for (const id of ids) {
    const { shardId, ms } = decodeId(id, layout);
    expect(shardId, id).toBe(shard);
    expect(ms, id).toBeGreaterThanOrEqual(before - 1);
    expect(ms, id).toBeLessThanOrEqual(Date.now() + 50);
  }
}

// The finding "High, MariaDB: the common grant moves the shard and the clock": with sheaf's tables in
// the application's database (SQL versions 1-11), `grant select, insert, update, delete, execute on
// app.*` let an application move the shard, date every id a year ahead, or end the layout for good.
// Since 0012 the state is in `sheaf_<app>`; replayed on a fresh install and on one upgraded from 11,
// as that account and as the owner of the application's database.
describeTargets(
  "sheaf's state beside the application database on MariaDB",
  (db) => {
    let accounts: SuiteAccounts;
    const apps: AppDatabase[] = [];
    // Per database: the account with the common grant, the one that owns the database, sheaf's settings.
    const setups = new Map<string, { common: SuiteAccount; owner: SuiteAccount; settings: unknown }>();

    async function prepare(app: AppDatabase, upgrade: boolean) {
      const common = await accounts.create('common');
      const owner = await accounts.create('owner');
      await install(app.root, { shard, ...(upgrade ? { upTo: 11 } : {}) });
      await app.root.query('create table orders (id bigint not null auto_increment primary key, v int)');
      await app.root.query(sheafTriggerSql('orders', 'id').create);
      await app.root.query(`grant select, insert, update, delete, execute on ${app.sql}.* to ${common.sql}`);
      await app.root.query(`grant all on ${app.sql}.* to ${owner.sql} with grant option`);
      if (upgrade) {
        await app.root.query('call sheaf_next_ids(10)');
        expect((await install(app.root)).applied).toContain(12);
      }
      const settings = await app.root.query(`select * from ${app.stateSql}.sheaf_settings`);
      setups.set(app.name, { common, owner, settings });
    }

    beforeAll(async () => {
      accounts = suiteAccounts(db());
      for (const [suffix, upgrade] of [
        ['fresh', false],
        ['upgraded', true],
      ] as const) {
        const app = await appDatabase(db(), suffix);
        apps.push(app);
        await prepare(app, upgrade);
      }
    });
    afterAll(async () => {
      for (const app of apps) await app.drop();
      await accounts?.drop();
    });

    it('the upgrade from 11 carries tickets, segments, leases, logical shards and the counter', async () => {
      const app = await appDatabase(db(), 'carry');
      apps.push(app);
      const sql = app.root;
      const app11 = await accounts.create('app11');
      await install(sql, { shard, upTo: 11 });
      await sql.query('create table orders (id bigint not null auto_increment primary key, v int)');
      await sql.query(sheafTriggerSql('orders', 'id').create);
      // grant() grants only on the installed version: the same statements, run before the upgrade.
      for (const statement of mysqlAppGrants(app11.name, app.name)) await sql.query(statement);
      await sql.query(`grant select, insert on orders to ${app11.sql}`);
      await queryState(sql, "call {state}.sheaf_create_ticket('t', 1, 1)");
      await queryState(sql, "call {state}.sheaf_create_segment('s', 100, 0, null)");
      await queryState(sql, 'call {state}.sheaf_add_shard(7)');
      const ticket = async (session: SqlExecutor) =>
        BigInt(String((await session.query<{ t: string }>("select sheaf_next_ticket('t') as t"))[0]?.t));
      const segment = async (session: SqlExecutor) => {
        const [range] = await session.query<{ first_id: string; last_id: string }>(
          "call sheaf_alloc_segment('s', null)",
        );
        return [BigInt(String(range?.first_id)), BigInt(String(range?.last_id))] as const;
      };
      const ids = async (session: SqlExecutor) =>
        [
          ...(await session.query<{ id: string }>('call sheaf_next_ids(20)')),
          ...(await session.query<{ id: string }>('insert into orders (v) values (1), (2) returning id')),
          ...(await session.query<{ id: string }>('select sheaf_next_shard_id(7) as id')),
        ].map((row) => BigInt(String(row.id)));
      const oldTickets = [await ticket(sql), await ticket(sql), await ticket(sql)];
      const [, oldMax] = await segment(sql);
      const [lease] = await sql.query<{ worker_id: number; lease_token: string }>(
        "call sheaf_lease_worker('w', 60000, 7)",
      );
      // The same session issues before and after the upgrade: its cached chunk stays valid.
      const oldIds = [...(await ids(sql)), ...(await app.as(app11, ids))];

      expect((await install(sql)).applied).toEqual(expect.arrayContaining([12]));
      expect(
        await sql.query(
          `select count(*) as n from information_schema.tables where table_schema = database() and table_name like 'sheaf\\_%'`,
        ),
      ).toEqual([{ n: '0' }]);

      const newTickets = [
        await ticket(sql),
        ...(await app.as(app11, async (session) => [await ticket(session), await ticket(session)])),
      ];
      expect(new Set([...oldTickets, ...newTickets]).size).toBe(6);
      for (const value of newTickets) expect(value).toBeGreaterThan(oldTickets[2]!);
      const [first] = await app.as(app11, segment);
      expect(first).toBe(oldMax + 1n);
      const [beat] = await app.as(app11, (session) =>
        session.query<{ expires: string }>('select sheaf_heartbeat_worker(?, ?, 0, 60000) as expires', [
          lease?.worker_id,
          lease?.lease_token,
        ]),
      );
      expect(Number(beat?.expires)).toBeGreaterThan(Date.now());
      const highest = (shardId: number) =>
        oldIds.filter((id) => decodeId(id, layout).shardId === shardId).reduce((a, b) => (a > b ? a : b));
      const newIds = [...(await ids(sql)), ...(await app.as(app11, ids)), ...(await app.as(null, ids))];
      expect(new Set([...oldIds, ...newIds]).size).toBe(oldIds.length + newIds.length);
      for (const id of newIds) {
        const { shardId } = decodeId(id, layout);
        expect([shard, 7]).toContain(shardId);
        expect(id, String(id)).toBeGreaterThan(highest(shardId));
      }
    });

    for (const [index, kind] of ['fresh install', 'upgrade from 11'].entries()) {
      it(`${kind}: the common grant neither moves the shard nor dates ids ahead nor ends the layout`, async () => {
        const app = apps[index]!;
        const { common, settings } = setups.get(app.name)!;
        await app.as(common, async (session) => {
          // Granted before the upgrade or after: the forwards and the trigger work.
          expect(await issued(app, session)).toHaveLength(10);
          for (const statement of [
            'update sheaf_settings set shard_id = 12',
            `insert into sheaf_chunks (k) values (${yearAhead()})`,
            `insert into sheaf_chunks (k) values (${endOfLayout})`,
            'delete from sheaf_chunks',
          ]) {
            // The tables are no longer in the application's database (1146), nor reachable in sheaf's (1142).
            expect(await refusal(session.query(statement)), statement).toBe(1146);
            const inState = statement.replace(/sheaf_(settings|chunks)/, `${app.stateSql}.sheaf_$1`);
            expect(await refusal(session.query(inState)), inState).toBe(1142);
          }
        });
        await expectSheafUnmoved(app, settings);
      });

      it(`${kind}: the owner of the application database cannot reach sheaf's database`, async () => {
        const app = apps[index]!;
        const { owner, settings } = setups.get(app.name)!;
        await app.as(owner, async (session) => {
          const state = app.stateSql;
          for (const statement of [
            `select * from ${state}.sheaf_settings`,
            `update ${state}.sheaf_settings set shard_id = 12`,
            `insert into ${state}.sheaf_chunks (k) values (${endOfLayout})`,
            `select lease_token from ${state}.sheaf_workers`,
            `update ${state}.sheaf_ticket_counter set k = k + 1000`,
            `update ${state}.sheaf_tickets set ticket_offset = 0`,
            `update ${state}.sheaf_segments set max_id = 0`,
            `update ${state}.sheaf_workers set lease_expires_ms = 0`,
            `insert into ${state}.sheaf_logical_shards (shard_id) values (12)`,
          ]) {
            expect(await refusal(session.query(statement)), statement).toBe(1142);
          }
          for (const statement of [
            `call ${state}.sheaf_configure(12, 'sheaf', ${layout.epoch}, 41, 12, 10, false)`,
            `select ${state}.sheaf_next_id()`,
            `select ${state}.sheaf_claim_shard(12, uuid(), 'x', false)`,
            `call ${state}.sheaf_add_shard(12)`,
            `call ${state}.sheaf_create_ticket('x', 1, 1)`,
          ]) {
            expect(await refusal(session.query(statement)), statement).toBe(1370);
          }
          // Its grant option is for its own database; a definer other than itself needs SUPER.
          expect(await refusal(session.query(`grant all on ${state}.* to ${owner.sql}`))).toBe(1044);
          expect(
            await refusal(
              session.query('create definer = root@localhost function sheaf_mine() returns bigint return 1'),
            ),
          ).toBe(1227);
          for (const [, name] of planted) {
            // Since 0013 the application's database has no routine of these names.
            const call = `call ${name}()`;
            expect(await refusal(session.query(call)), call).toBe(1305);
          }
        });
        await expectSheafUnmoved(app, settings);
      });

      it(`${kind}: what the owner does in its own database does not change what sheaf issues`, async () => {
        const app = apps[index]!;
        const { owner, settings } = setups.get(app.name)!;
        await app.as(owner, async (session) => {
          // Tables of sheaf's names in the application's database: sheaf's routines never read them.
          await session.query(
            'create table sheaf_settings (singleton int primary key, shard_id int, layout_name varchar(40), ' +
              'epoch_ms bigint, time_bits int, shard_bits int, sequence_bits int, test_clock boolean)',
          );
          await session.query(`insert into sheaf_settings values (1, 12, 'sheaf', ${layout.epoch}, 41, 12, 10, true)`);
          await session.query(
            'create table sheaf_chunks (k bigint not null auto_increment, s bigint not null default 0, primary key (k, s))',
          );
          await session.query(`insert into sheaf_chunks (k) values (${endOfLayout})`);
          // A forward it drops and creates again runs as itself: its own database's problem.
          await session.query('drop function sheaf_next_id');
          await session.query(
            `create function sheaf_next_id() returns bigint not deterministic modifies sql data return ${app.stateSql}.sheaf_next_id()`,
          );
          expect(await refusal(session.query('select sheaf_next_id()'))).toBe(1370);
          await session.query('drop function sheaf_next_id');
          await session.query('create function sheaf_next_id() returns bigint not deterministic no sql return 42');
          const [forged] = await session.query<{ id: string }>('select sheaf_next_id() as id');
          expect(String(forged?.id)).toBe('42');
        });
        // What sheaf issues to sessions calling its own database is unchanged.
        for (const take of [`select ${app.stateSql}.sheaf_next_id() as id`, `call ${app.stateSql}.sheaf_next_ids(3)`]) {
          const before = Date.now();
          for (const row of await app.root.query<{ id: string }>(take)) {
            const { shardId, ms } = decodeId(String(row.id), layout);
            expect(shardId, take).toBe(shard);
            expect(ms, take).toBeGreaterThanOrEqual(before - 1);
            expect(ms, take).toBeLessThanOrEqual(Date.now() + 50);
          }
        }
        expect(await app.root.query(`select * from ${app.stateSql}.sheaf_settings`)).toEqual(settings);
        // Put the application's database back as sheaf made it, for the checks of the other tests.
        await app.root.query('drop table sheaf_settings, sheaf_chunks');
        await app.root.query('drop function sheaf_next_id');
        await app.root.query(
          `create function sheaf_next_id() returns bigint not deterministic modifies sql data return ${app.stateSql}.sheaf_next_id()`,
        );
        await expectSheafUnmoved(app, settings);
      });

      it(`${kind}: routines the owner creates under the names of sheaf's admin routines never run as an admin`, async () => {
        const app = apps[index]!;
        const { owner, settings } = setups.get(app.name)!;
        await app.as(owner, async (session) => {
          await session.query('create table marker (who varchar(200))');
          for (const [kind, name, params] of planted) {
            const args = Array.from({ length: params }, (_, i) => `p${i} text`).join(', ');
            const mark = `insert into marker values (concat('${name} as ', current_user()))`;
            await session.query(
              kind === 'function'
                ? `create function ${name}(${args}) returns bigint not deterministic modifies sql data sql security invoker
                    begin ${mark}; return 0; end`
                : // What an admin running it would give away: sheaf's database to the owner.
                  `create procedure ${name}(${args}) sql security invoker
                    begin ${mark}; grant all on ${app.stateSql}.* to ${owner.sql}; end`,
            );
          }
        });
        // Installing again (configure, the claim of the shard) and reconfiguring call sheaf's own routines.
        await install(app.root, { shard });
        await install(app.root);
        const [before] = settings as { configured_at: Date }[];
        const configured = await app.root.query<{ configured_at: Date }>(
          `select * from ${app.stateSql}.sheaf_settings`,
        );
        expect(configured).toEqual([{ ...before, configured_at: expect.any(Date) }]);
        expect(configured[0]!.configured_at.getTime()).toBeGreaterThan(before!.configured_at.getTime());
        expect(await app.root.query('select who from marker')).toEqual([]);
        const grants = await app.root.query<Record<string, string>>(`show grants for ${owner.sql}`);
        expect(grants.map((row) => Object.values(row)[0]).join('\n')).not.toContain(app.stateSql);
        // What an admin calling the unqualified name would have run, as itself.
        await app.root.query("select sheaf_claim_shard(12, uuid(), 'x', false)");
        expect(await app.root.query('select who from marker')).toEqual([
          { who: expect.stringMatching(/^sheaf_claim_shard as root@/) },
        ]);
        for (const [kind, name] of planted) await app.root.query(`drop ${kind} ${name}`);
        await app.root.query('drop table marker');
        await expectSheafUnmoved(app, configured);
      });
    }
  },
  { only: ['mariadb'] },
);
