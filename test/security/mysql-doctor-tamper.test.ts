// What `sheaf doctor` sees on MySQL/MariaDB when sheaf's state or its forwards were tampered with,
// and the owner's way back: accounts that can write `sheaf_<app>`, a forward replaced in the
// application's database, and a chunk counter moved ahead of the clock or to the layout's end.
import { decodeId, grant, install, isSheafError, mysqlState, type SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CheckJson, type DoctorJson, doctor } from '../cli/doctor-run.js';
import { sheaf } from '../cli/run-sheaf.js';
import { describeTargets } from '../support/database.js';
import { type SuiteAccount, type SuiteAccounts, suiteAccounts } from '../support/mysql-accounts.js';

// Several CLI processes per test.
const cliTimeout = 120_000;

/** The MySQL error number a statement failed with (through a SheafError's cause too); undefined when it succeeded. */
async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { errno?: number; cause?: { errno?: number } },
  );
  return error && (error.errno ?? error.cause?.errno ?? -1);
}

function checkOf(report: DoctorJson, name: string): CheckJson {
  const found = report.databases[0]?.checks.find((each) => each.name === name);
  if (!found) throw new Error(`no check "${name}" in ${JSON.stringify(report.databases[0])}`);
  return found;
}

/** A URL that logs in as `account` to the suite's database. */
function urlAs(account: SuiteAccount): string {
  const { user, password, host, port, database } = account.login;
  return `mysql://${user}:${password}@${host}:${port}/${database}`;
}

// The sheaf layout: 41 time bits, 12 shard bits, 10 sequence bits; four chunks per millisecond.
const lastTick = 2n ** 41n - 1n;
const chunkOf = (tick: bigint) => tick << 2n;

describeTargets(
  'sheaf doctor against tampering on MySQL/MariaDB',
  (db) => {
    let accounts: SuiteAccounts;
    let app: SuiteAccount;
    let url: string;
    let state: ReturnType<typeof mysqlState>;
    const stored: bigint[] = [];

    const sql = (): SqlExecutor => db().executor;
    const nextId = async (session: SqlExecutor) =>
      BigInt(String((await session.query<{ id: unknown }>('select sheaf_next_id() as id'))[0]?.id));

    beforeAll(async () => {
      url = String(db().url);
      state = mysqlState(new URL(url).pathname.slice(1));
      await install(sql(), { shard: 3 });
      await sql().query('create table orders (id bigint not null auto_increment primary key, note varchar(20))');
      await sql().query(`create trigger orders_id before insert on orders for each row
        begin if new.id is null or new.id = 0 then set new.id = sheaf_next_id(); end if; end`);
      accounts = suiteAccounts(db());
      app = await accounts.create('app');
      await grant(sql(), app.name);
      await sql().query(`grant select, insert on orders to ${app.sql}`);
    });
    afterAll(async () => {
      await accounts?.drop();
    });

    it(
      'fails naming every account but the owner that can write sheaf_<app>, by name, pattern, table or routine',
      async () => {
        const healthy = await doctor([url]);
        expect(checkOf(healthy.report, 'grants')).toMatchObject({ status: 'ok' });
        expect(checkOf(healthy.report, 'ownership')).toMatchObject({ status: 'ok' });

        const named = await accounts.create('named');
        const pattern = await accounts.create('pattern');
        const table = await accounts.create('table');
        const routine = await accounts.create('routine');
        const appAll = await accounts.create('appall');
        const peeker = await accounts.create('peek');
        // `\_` is a literal underscore, `_` and `%` wildcards, as the server matches mysql.db.
        const likeState = `${state.state.slice(0, -3).replaceAll('_', '\\_')}_%`;
        await sql().query(`grant insert, update on ${state.stateSql}.* to ${named.sql}`);
        await sql().query(`grant alter on \`${likeState}\`.* to ${pattern.sql}`);
        await sql().query(`grant update on ${state.in('sheaf_settings')} to ${table.sql}`);
        await sql().query(`grant execute on procedure ${state.in('sheaf__check_shard')} to ${routine.sql}`);
        // Lease tokens are secrets: reading them is a finding too.
        await sql().query(`grant select on ${state.in('sheaf_workers')} to ${peeker.sql}`);
        // What an application may run anyway, through the forwards: not a finding.
        await sql().query(`grant execute on function ${state.in('sheaf_next_id')} to ${routine.sql}`);
        // The application's database does not reach sheaf's.
        await sql().query(`grant all on ${state.appSql}.* to ${appAll.sql}`);

        const { code, report, stderr } = await doctor([url]);
        expect(code).toBe(1);
        const grants = checkOf(report, 'grants');
        expect(grants).toMatchObject({ status: 'fail' });
        expect(grants.message).toMatch(
          /^5 grants let accounts other than sheaf's owner read or write sheaf's database \(/,
        );
        expect(grants.details!.findings).toEqual([
          { grantee: named.name, privilege: 'insert, update', object: `${state.stateSql}.*` },
          { grantee: pattern.name, privilege: 'alter', object: `\`${likeState}\`.*` },
          { grantee: peeker.name, privilege: 'select', object: `table ${state.in('sheaf_workers')}` },
          { grantee: table.name, privilege: 'update', object: `table ${state.in('sheaf_settings')}` },
          { grantee: routine.name, privilege: 'execute', object: `procedure ${state.in('sheaf__check_shard')}` },
        ]);
        expect(stderr).toMatch(/grants on .* \(UNSAFE_GRANTS\)/);

        // An account that cannot read mysql.* gets no verdict, not an ok.
        const reader = await accounts.create('reader');
        await sql().query(`grant select on ${state.stateSql}.* to ${reader.sql}`);
        await sql().query(`grant select on ${state.appSql}.* to ${reader.sql}`);
        const unread = await doctor([urlAs(reader)]);
        expect(checkOf(unread.report, 'grants')).toMatchObject({
          status: 'warn',
          message: expect.stringMatching(/^cannot read the grants: .*denied/),
        });

        for (const each of [named, pattern, table, routine, appAll, reader, peeker]) {
          await sql().query(`drop user ${each.sql}`);
        }
        expect(checkOf((await doctor([url])).report, 'grants')).toMatchObject({ status: 'ok' });
      },
      cliTimeout,
    );

    it(
      'fails when a forward of the application database is replaced; install re-creates it',
      async () => {
        const owner = await accounts.create('owner');
        await sql().query(`grant all on ${state.appSql}.* to ${owner.sql}`);
        // An account that owns the application's database takes over sheaf_next_id().
        await owner.as(async (session) => {
          await session.query('drop function sheaf_next_id');
          await session.query('create function sheaf_next_id() returns bigint not deterministic no sql return 42');
        });
        // Sheaf's owner's definer, another body: still not a forward.
        await sql().query('drop function sheaf_id_shard');
        await sql().query('create function sheaf_id_shard(p_id bigint) returns integer deterministic no sql return 0');

        const { code, report, stderr } = await doctor([url]);
        expect(code).toBe(1);
        const ownership = checkOf(report, 'ownership');
        expect(ownership.status).toBe('fail');
        expect(ownership.message).toContain(`function ${state.appSql}.sheaf_next_id is defined by ${owner.name}`);
        expect(ownership.message).toContain(
          `function ${state.appSql}.sheaf_id_shard does not forward to ${state.in('sheaf_id_shard')}`,
        );
        expect(ownership.message).toMatch(/run `sheaf install` as \S+, which re-creates them/);
        expect(stderr).toMatch(/^sheaf: 1 check failed: ownership on .* \(UNSAFE_OWNERSHIP\)\n$/);

        // The files are recorded as applied: only the forward check re-creates them.
        expect((await sheaf(['install', '--url', url])).code).toBe(0);
        expect(checkOf((await doctor([url])).report, 'ownership')).toMatchObject({ status: 'ok' });
        const id = await nextId(sql());
        expect(id).not.toBe(42n);
        expect(decodeId(id).shardId).toBe(3);
        const [shard] = await sql().query<{ shard: unknown }>('select sheaf_id_shard(?) as shard', [id.toString()]);
        expect(Number(shard?.shard)).toBe(3);
        await sql().query(`drop user ${owner.sql}`);
        // The replacement dropped the application's EXECUTE with the routine: sheaf grant gives it back.
        await grant(sql(), app.name);
      },
      cliTimeout,
    );

    it(
      'fails on a counter moved past the layout; only the owner repairs it, and ids flow on without a duplicate',
      async () => {
        for (let i = 0; i < 20; i++) await sql().query("insert into orders (note) values ('before')");
        const before = await sql().query<{ id: unknown }>(
          "select cast(id as char) as id from orders where note = 'before'",
        );
        stored.push(...before.map((row) => BigInt(String(row.id))));

        await sql().query(`alter table ${state.in('sheaf_chunks')} auto_increment = ${chunkOf(lastTick + 1n)}`);
        const { code, report } = await doctor([url]);
        expect(code).toBe(1);
        const lastId = checkOf(report, 'last id');
        expect(lastId).toMatchObject({ status: 'fail' });
        expect(lastId.message).toMatch(
          /^the chunk counter \(sheaf_chunks' AUTO_INCREMENT\) is at 2093-09-06T15:47:35\.551Z, at the layout's last millisecond .* with the server clock at \S+Z: claims fail \(TIME_EXHAUSTED\); someone moved it there; as sheaf's owner, run `sheaf repair-counter`/,
        );

        // A session of its own: the pool's may still hold a chunk of the current millisecond.
        const session = await db().connect();
        try {
          const failed = await nextId(session.executor).catch((error: unknown) => error);
          expect(isSheafError(failed, 'TIME_EXHAUSTED')).toBe(true);
        } finally {
          await session.close();
        }

        // The application account can neither run the repair nor do what it does.
        expect(
          await app.as((session) => refusal(session.query(`call ${state.in('sheaf_repair_counter')}(null)`))),
        ).toBe(1370);
        await sql().query(`grant execute on procedure ${state.in('sheaf_repair_counter')} to ${app.sql}`);
        expect(
          await app.as((session) => refusal(session.query(`call ${state.in('sheaf_repair_counter')}(null)`))),
        ).toBe(1142);
        await sql().query(`revoke execute on procedure ${state.in('sheaf_repair_counter')} from ${app.sql}`);
        const asApp = await sheaf(['repair-counter', '--url', urlAs(app)]);
        expect(asApp.code).toBe(1);

        const repaired = await sheaf(['repair-counter', '--url', url, '--json']);
        expect(repaired.stderr).toBe('');
        expect(repaired.code).toBe(0);
        const largest = stored.reduce((a, b) => (a > b ? a : b));
        expect(JSON.parse(repaired.stdout)).toMatchObject({ largestStoredId: largest.toString() });

        const after = await db().connect();
        try {
          for (let i = 0; i < 20; i++) await after.executor.query("insert into orders (note) values ('after')");
        } finally {
          await after.close();
        }
        const rows = await sql().query<{ id: unknown }>(
          "select cast(id as char) as id from orders where note = 'after'",
        );
        const ids = rows.map((row) => BigInt(String(row.id)));
        for (const id of ids) {
          expect(id > largest).toBe(true);
          expect(Math.abs(decodeId(id).ms - Date.now())).toBeLessThan(10_000);
        }
        expect(new Set([...stored, ...ids]).size).toBe(stored.length + ids.length);
        expect(checkOf((await doctor([url])).report, 'last id')).toMatchObject({ status: 'ok' });
      },
      cliTimeout,
    );

    it(
      'refuses the repair while claims succeed, or when a stored id is not behind the clock',
      async () => {
        const [row] = await sql().query<{ tick: unknown }>(
          'select floor(unix_timestamp(sysdate(3)) * 1000) - 1704067200000 as tick',
        );
        const hourAhead = BigInt(String(row?.tick)) + 3_600_000n;
        // An hour ahead, within the layout: ids may have been issued up there.
        await sql().query(`alter table ${state.in('sheaf_chunks')} auto_increment = ${chunkOf(hourAhead)}`);
        const ahead = await doctor([url]);
        expect(ahead.code).toBe(1);
        expect(checkOf(ahead.report, 'last id')).toMatchObject({
          status: 'fail',
          message: expect.stringMatching(
            /^the chunk counter \(sheaf_chunks' AUTO_INCREMENT\) is at \S+Z, 3\d{3}(\.\d)? s ahead of the server clock \(\S+Z; fails above 60 s\): someone moved it, or the clock stepped back by that much/,
          ),
        });
        const within = await sheaf(['repair-counter', '--url', url]);
        expect(within.code).toBe(1);
        expect(within.stderr).toMatch(/^sheaf: counter at \S+Z, within layout sheaf: nothing to repair/);

        // An id stored an hour ahead, then the counter moved to the end: going back could repeat it.
        const fresh = await db().connect();
        const ahead1 = await nextId(fresh.executor).finally(() => fresh.close());
        expect(decodeId(ahead1).ms).toBeGreaterThan(Date.now() + 3_000_000);
        await sql().query(`alter table ${state.in('sheaf_chunks')} auto_increment = ${chunkOf(lastTick + 1n)}`);
        await sql().query("insert into orders (id, note) values (?, 'ahead')", [ahead1.toString()]);
        const refused = await sheaf(['repair-counter', '--url', url]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(new RegExp(`^sheaf: id ${ahead1} was issued at \\S+Z, not before the clock`));
      },
      cliTimeout,
    );
  },
  { only: ['mariadb'] },
);
