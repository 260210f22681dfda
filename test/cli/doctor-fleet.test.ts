import { defineLayout, type InstallOptions, install, SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Opened, openDatabase, type TestDatabase } from '../support/database.js';
import { queryState } from '../support/state-sql.js';
import { selectedTargets, type TargetName } from '../support/targets.js';
import { type CheckJson, type DoctorJson, doctor } from './doctor-run.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test, each a fresh tsx process.
const cliTimeout = 120_000;

/** The id space's check called `name`; fails when it is missing. */
function fleetCheck(report: DoctorJson, name: string): CheckJson {
  const found = report.idSpace?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no id space check "${name}" in ${JSON.stringify(report.idSpace)}`);
  return found;
}

function checkOf(report: DoctorJson, name: string, index: number): CheckJson {
  const found = report.databases[index]?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check "${name}" in ${JSON.stringify(report.databases[index])}`);
  return found;
}

/**
 * The SQL a test uses to put rows in a database's id space by hand, per dialect. Rows go in as the
 * owner would write them: the tests describe states the SQL functions refuse to create (a lease on
 * another database's shard), which are what the doctor must find.
 */
const idSpaceSql = {
  postgres: {
    databaseId: 'select database_id::text as id from sheaf.settings',
    free: 'delete from sheaf.workers where worker_id = $1',
    lease: `insert into sheaf.workers (worker_id, holder, lease_token, expires_at, heartbeat_at)
      values ($1, $2, gen_random_uuid(), clock_timestamp() + $3::integer * interval '1 millisecond', clock_timestamp())`,
    register: `insert into sheaf.workers (worker_id, kind, database_id, holder, expires_at, heartbeat_at)
      values ($1, 'database', $2::uuid, $3, case when $4::boolean then 'infinity'::timestamptz end, clock_timestamp())`,
    ticket: 'select sheaf.create_ticket($1, $2, $3)',
    addShard: 'select sheaf.add_shard($1)',
  },
  mysql: {
    databaseId: 'select database_id as id from {state}.sheaf_settings',
    free: 'delete from {state}.sheaf_workers where worker_id = ?',
    lease: `insert into {state}.sheaf_workers (worker_id, holder, lease_token, expires_ms, heartbeat_ms)
      values (?, ?, uuid(), floor(unix_timestamp(sysdate(3)) * 1000) + ?, floor(unix_timestamp(sysdate(3)) * 1000))`,
    register: `insert into {state}.sheaf_workers (worker_id, kind, database_id, holder, expires_ms, heartbeat_ms)
      values (?, 'database', ?, ?, if(?, 9223372036854775807, null), floor(unix_timestamp(sysdate(3)) * 1000))`,
    ticket: 'call {state}.sheaf_create_ticket(?, ?, ?)',
    addShard: 'call {state}.sheaf_add_shard(?)',
  },
};

type Dialect = keyof typeof idSpaceSql;
const dialectOf = (target: TargetName): Dialect => (target === 'mariadb' ? 'mysql' : 'postgres');

/** A database of a pair: its URL for the CLI and helpers to shape its id space. */
interface Member {
  readonly url: string;
  readonly sql: SqlExecutor;
  readonly dialect: Dialect;
}

/** A live worker lease on `value`, taking the place of any row there (a registration, a lease). */
async function lease(member: Member, value: number, holder: string, ms = 600_000): Promise<void> {
  const sql = idSpaceSql[member.dialect];
  await queryState(member.sql, sql.free, [value]);
  await queryState(member.sql, sql.lease, [value, holder, ms]);
}

async function databaseIdOf(member: Member): Promise<string> {
  const [row] = await queryState<{ id: unknown }>(member.sql, idSpaceSql[member.dialect].databaseId);
  return String(row!.id);
}

/** What shows two URLs reach one database: PostgreSQL's node identity, MySQL's database_id. */
async function sameBy(member: Member): Promise<string> {
  if (member.dialect === 'mysql') return `database_id ${await databaseIdOf(member)}`;
  const [row] = await member.sql.query<{ identity: unknown }>('select sheaf.node_identity() as identity');
  return `node identity ${String(row!.identity)}`;
}

async function register(member: Member, value: number, databaseId: string, holder: string, pending = false) {
  const sql = idSpaceSql[member.dialect];
  await queryState(member.sql, sql.free, [value]);
  await queryState(member.sql, sql.register, [value, databaseId, holder, pending]);
}

const pairs: readonly [TargetName, TargetName][] = [
  ['postgres', 'postgres'],
  ['mariadb', 'mariadb'],
  ['postgres', 'mariadb'],
];

for (const [firstTarget, secondTarget] of pairs) {
  const chosen = selectedTargets().includes(firstTarget) && selectedTargets().includes(secondTarget);
  const suite = chosen ? describe : describe.skip;
  suite(`sheaf doctor of several databases [${firstTarget} + ${secondTarget}${chosen ? '' : ': not selected'}]`, () => {
    const opened: Opened[] = [];
    let passed = true;
    beforeEach(({ onTestFailed }) => {
      passed = true;
      onTestFailed(() => {
        passed = false;
      });
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((database) => database.close(passed)));
    });

    /** Two fresh databases, without sheaf. */
    async function empty(): Promise<[Member, Member]> {
      const members = [firstTarget, secondTarget].map(async (target) => {
        const database = await openDatabase(target);
        opened.push(database);
        const { url, executor } = database.database as TestDatabase & { url: string };
        return { url, sql: executor, dialect: dialectOf(target) };
      });
      return (await Promise.all(members)) as [Member, Member];
    }

    /** Two fresh databases with sheaf installed with these options. */
    async function pair(first: InstallOptions, second: InstallOptions): Promise<[Member, Member]> {
      const [a, b] = await empty();
      await Promise.all([install(a.sql, first), install(b.sql, second)]);
      return [a, b];
    }

    it(
      'passes a healthy pair with exit 0, printing the id space after the databases',
      async () => {
        const [a, b] = await pair({ shard: 1 }, { shard: 2 });
        await queryState(a.sql, idSpaceSql[a.dialect].ticket, ['orders', 2, 1]);
        await queryState(b.sql, idSpaceSql[b.dialect].ticket, ['orders', 2, 2]);
        await lease(a, 7, 'pid 12 on app-1');
        // An expired lease holds nothing.
        await lease(b, 9, 'pid 13 on app-2', 1);
        await new Promise((resolve) => setTimeout(resolve, 20));

        const text = await sheaf(['doctor', '--url', a.url, '--url', b.url]);
        expect(text.stderr).toBe('');
        expect(text.code).toBe(0);
        expect(text.stdout).toMatch(
          /^id space of 2 databases\n {2}ok +layouts +sheaf \(epoch 2024-01-01T00:00:00\.000Z/m,
        );
        expect(text.stdout).toMatch(
          /^ {2}ok +id space +4,093 of 4,096 shard values left: 3 held by 2 databases and 1 worker lease$/m,
        );
        expect(text.stdout).toMatch(/\n\n2 databases: \d+ ok, 0 warnings, 0 failures\n$/);

        const { code, report } = await doctor([a.url, b.url]);
        expect(code).toBe(0);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        expect(report.idSpace!.databases).toEqual([labelA, labelB]);
        expect(report.idSpace!.checks.map((c) => [c.name, c.status])).toEqual([
          ['layouts', 'ok'],
          ['ticket orders', 'ok'],
          ['id space', 'ok'],
        ]);
        expect(fleetCheck(report, 'layouts').message).toBe(
          'sheaf (epoch 2024-01-01T00:00:00.000Z, 41/12/10) on both databases',
        );
        expect(fleetCheck(report, 'ticket orders').message).toBe(
          `on ${labelA} and ${labelB} (step 2 offset 1, step 2 offset 2): no value is handed out twice`,
        );
        expect(fleetCheck(report, 'id space').details).toMatchObject({
          shardBits: 12,
          values: 4096,
          held: 3,
          left: 4093,
          databases: 2,
          workers: 1,
        });
        expect(checkOf(report, 'workers', 1).message).toMatch(/^0 of 4,096 worker ids leased/);
      },
      cliTimeout,
    );

    it(
      'fails two databases installed with one shard, in the shard check of each',
      async () => {
        const [a, b] = await pair({ shard: 5 }, { shard: 5 });
        const { code, report, stderr } = await doctor([a.url, b.url]);
        expect(code).toBe(1);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        expect(checkOf(report, 'shard', 0)).toMatchObject({
          status: 'fail',
          message: expect.stringMatching(new RegExp(`^shard 5 is also configured on ${escapeRegExp(labelB!)}: `)),
        });
        expect(checkOf(report, 'shard', 1).message).toMatch(
          new RegExp(`^shard 5 is also configured on ${escapeRegExp(labelA!)}: `),
        );
        // Reported once per database, not again in the id space, which counts the one value held.
        expect(report.idSpace!.checks.map((c) => c.name)).toEqual(['layouts', 'id space']);
        expect(fleetCheck(report, 'id space').message).toBe(
          '4,095 of 4,096 shard values left: 1 held by 2 databases and 0 worker leases',
        );
        expect(stderr).toBe(`sheaf: 2 checks failed: shard on ${labelA}, shard on ${labelB} (SHARD_TAKEN)\n`);
      },
      cliTimeout,
    );

    it(
      "fails a worker leased in one database on the other's configured shard, naming both",
      async () => {
        const [a, b] = await pair({ shard: 3 }, { shard: 4 });
        await queryState(a.sql, idSpaceSql[a.dialect].addShard, [6]);
        await lease(b, 3, 'pid 12 on host');
        await lease(b, 6, 'pid 14 on host');
        // The other way round too: a lease in A on B's shard.
        await lease(a, 4, 'pid 15 on host');
        const { code, report, stderr } = await doctor([a.url, b.url]);
        expect(code).toBe(1);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        expect(fleetCheck(report, 'shard 3')).toMatchObject({
          status: 'fail',
          message: `shard 3: configured on ${labelA} and leased by worker 'pid 12 on host' in ${labelB}: their ids collide`,
          details: {
            shard: 3,
            holders: [
              { kind: 'configured', database: labelA, holder: labelA },
              { kind: 'leased', database: labelB, holder: 'pid 12 on host' },
            ],
          },
        });
        expect(fleetCheck(report, 'shard 4').message).toBe(
          `shard 4: configured on ${labelB} and leased by worker 'pid 15 on host' in ${labelA}: their ids collide`,
        );
        expect(fleetCheck(report, 'shard 6').message).toBe(
          `shard 6: a logical shard of ${labelA} and leased by worker 'pid 14 on host' in ${labelB}: their ids collide`,
        );
        // Each database's own shard check compares configured shards only, which differ.
        expect(checkOf(report, 'shard', 0).status).toBe('ok');
        expect(stderr).toBe(
          'sheaf: 3 checks failed: shard 3 in the id space, shard 4 in the id space, shard 6 in the id space (SHARD_TAKEN)\n',
        );
      },
      cliTimeout,
    );

    it(
      'reads the SQL before the id space (no kind column): every lease counts, on its own database too',
      async () => {
        const before = { postgres: 8, mysql: 5 };
        const [a, b] = await empty();
        await install(a.sql, { shard: 0, upTo: before[a.dialect] });
        await install(b.sql, { shard: 1, upTo: before[b.dialect] });
        await queryState(a.sql, idSpaceSql[a.dialect].addShard, [2]);
        // Before the id space a generator leases the lowest free worker id, whatever shards exist.
        const generators = [
          await SnowflakeGenerator.start(a.sql, { maxWorker: 3, holder: 'app on a' }),
          await SnowflakeGenerator.start(b.sql, { maxWorker: 3, holder: 'app on b' }),
        ];
        try {
          expect(generators.map((generator) => generator.workerId)).toEqual([0, 0]);
          await lease(a, 2, 'app 2 on a');
          const { code, report } = await doctor([a.url, b.url]);
          expect(code).toBe(1);
          const [labelA, labelB] = report.databases.map((database) => database.database);
          expect(report.idSpace!.checks.map((c) => [c.name, c.status])).toEqual([
            ['layouts', 'ok'],
            ['shard 0', 'fail'],
            ['shard 2', 'fail'],
            ['id space', 'ok'],
          ]);
          expect(fleetCheck(report, 'shard 0').message).toBe(
            `shard 0: configured on ${labelA}, leased by worker 'app on a' in ${labelA} and leased by worker ` +
              `'app on b' in ${labelB}: their ids collide`,
          );
          expect(fleetCheck(report, 'shard 2').message).toBe(
            `shard 2: a logical shard of ${labelA} and leased by worker 'app 2 on a' in ${labelA}: their ids collide`,
          );
          expect(checkOf(report, 'workers', 0).message).toBe('2 of 4,096 worker ids leased (0 %)');

          // One database alone: its own leases on its own shards.
          const alone = await doctor([a.url]);
          expect(alone.code).toBe(1);
          expect(alone.report.idSpace!.checks.map((c) => [c.name, c.status])).toEqual([
            ['shard 0', 'fail'],
            ['shard 2', 'fail'],
            ['id space', 'ok'],
          ]);
          expect(fleetCheck(alone.report, 'shard 0').message).toBe(
            `shard 0: configured on ${labelA} and leased by worker 'app on a' in ${labelA}: their ids collide`,
          );
          expect(alone.stderr).toBe(
            `sheaf: 2 checks failed: shard 0 in the id space, shard 2 in the id space (SHARD_TAKEN)\n`,
          );
        } finally {
          for (const generator of generators) await generator.close();
        }
      },
      cliTimeout,
    );

    it(
      'fails databases with different layouts, same-named ones included',
      async () => {
        const narrow = defineLayout({
          name: 'sheaf',
          epoch: '2024-01-01',
          timeBits: 41,
          shardBits: 8,
          sequenceBits: 14,
        });
        const twitter = defineLayout({
          name: 'twitter',
          epoch: 1288834974657,
          timeBits: 41,
          shardBits: 10,
          sequenceBits: 12,
        });
        const [a, b] = await pair({ shard: 1 }, { shard: 2, layout: twitter });
        const { code, report } = await doctor([a.url, b.url]);
        expect(code).toBe(1);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        expect(fleetCheck(report, 'layouts')).toMatchObject({
          status: 'fail',
          message:
            `layout sheaf (epoch 2024-01-01T00:00:00.000Z, 41/12/10) on ${labelA} but twitter ` +
            `(epoch 2010-11-04T01:42:54.657Z, 41/10/12) on ${labelB}: ids of one table must share a layout`,
        });
        // The shard values every database can issue: the narrower field's.
        expect(fleetCheck(report, 'id space').message).toMatch(/^1,022 of 1,024 shard values left/);

        const [c, d] = await pair({ shard: 1 }, { shard: 2, layout: narrow });
        const same = await doctor([c.url, d.url]);
        expect(same.code).toBe(1);
        expect(fleetCheck(same.report, 'layouts').message).toMatch(
          /^layout sheaf \(epoch 2024-01-01T00:00:00\.000Z, 41\/12\/10\) on .* but sheaf \(epoch 2024-01-01T00:00:00\.000Z, 41\/8\/14\) on /,
        );
      },
      cliTimeout,
    );

    it(
      'fails ticket servers that hand out one value, naming both and the first value',
      async () => {
        const [a, b] = await pair({ shard: 1 }, { shard: 2 });
        const tickets: [string, [number, number], [number, number]][] = [
          ['same', [2, 1], [2, 1]],
          ['split', [2, 1], [2, 2]],
          ['coprime', [2, 1], [3, 1]],
          ['shared-factor', [4, 1], [6, 3]],
          ['apart', [4, 1], [6, 2]],
        ];
        for (const [name, [stepA, offsetA], [stepB, offsetB]] of tickets) {
          await queryState(a.sql, idSpaceSql[a.dialect].ticket, [name, stepA, offsetA]);
          await queryState(b.sql, idSpaceSql[b.dialect].ticket, [name, stepB, offsetB]);
        }
        // On one database only: nothing to compare.
        await queryState(a.sql, idSpaceSql[a.dialect].ticket, ['alone', 1, 1]);
        const { code, report, stderr } = await doctor([a.url, b.url]);
        expect(code).toBe(1);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        const fix = 'give every server of a ticket one step and an offset of its own';
        expect(fleetCheck(report, 'ticket same')).toMatchObject({
          status: 'fail',
          message: `${labelA} (step 2, offset 1) and ${labelB} (step 2, offset 1) both hand out 1, then every 2: ${fix}`,
          details: { clashes: [{ databases: [labelA, labelB], first: '1', every: '2' }] },
        });
        expect(fleetCheck(report, 'ticket split').status).toBe('ok');
        expect(fleetCheck(report, 'ticket coprime').message).toBe(
          `${labelA} (step 2, offset 1) and ${labelB} (step 3, offset 1) both hand out 1, then every 6: ${fix}`,
        );
        // 1, 5, 9 and 3, 9: CRT gives 9.
        expect(fleetCheck(report, 'ticket shared-factor').message).toMatch(/both hand out 9, then every 12: /);
        expect(fleetCheck(report, 'ticket apart')).toMatchObject({
          status: 'ok',
          message: expect.stringMatching(/\(step 4 offset 1, step 6 offset 2\): the steps differ, but no value is/),
        });
        expect(report.idSpace!.checks.some((c) => c.name === 'ticket alone')).toBe(false);
        expect(stderr).toMatch(
          /^sheaf: 3 checks failed: ticket coprime in the id space, ticket same in the id space, ticket shared-factor/,
        );
      },
      cliTimeout,
    );

    it(
      'warns when over 80 % of the shard values are held',
      async () => {
        const small = defineLayout({
          name: 'small',
          epoch: '2024-01-01',
          timeBits: 41,
          shardBits: 3,
          sequenceBits: 10,
        });
        const [a, b] = await pair({ shard: 0, layout: small }, { shard: 1, layout: small });
        for (const value of [2, 3, 4, 5, 6]) await lease(b, value, `pid ${value} on host`);
        const { code, report } = await doctor([a.url, b.url]);
        expect(code).toBe(0);
        expect(fleetCheck(report, 'id space')).toMatchObject({
          status: 'warn',
          message: '1 of 8 shard values left: 7 held by 2 databases and 5 worker leases; 87.5 % used, above 80 %',
          details: { values: 8, held: 7, left: 1, usedPercent: 87.5 },
        });
        // B's own table: its leases and its own shard, which leases skip.
        expect(checkOf(report, 'workers', 1).message).toBe('5 of 8 worker ids leased, 1 held by databases (75 %)');
      },
      cliTimeout,
    );

    it(
      "reads 'database' rows as registrations, never as worker leases",
      async () => {
        const [a, b] = await empty();
        await install(a.sql, { shard: 1 });
        // A is B's registry: B's shard is recorded there too, which is no clash.
        await install(b.sql, { shard: 2, registry: a.sql });
        // Another database, not given, registered in A: no clash, but its shard is taken.
        const stranger = '00000000-0000-4000-8000-000000000042';
        await register(a, 6, stranger, 'stranger on db-9');
        // An install that never confirmed its claim: a warning, and the value counts as held.
        await register(a, 11, '00000000-0000-4000-8000-000000000043', 'crashed on db-7', true);
        const { code, report } = await doctor([a.url, b.url]);
        expect(code).toBe(0);
        const [labelA, labelB] = report.databases.map((database) => database.database);
        expect(report.idSpace!.checks.map((c) => [c.name, c.status])).toEqual([
          ['layouts', 'ok'],
          ['shard 11', 'warn'],
          ['id space', 'ok'],
        ]);
        expect(fleetCheck(report, 'shard 11').message).toMatch(
          new RegExp(
            `^shard 11: claimed in ${escapeRegExp(labelA!)} for database 'crashed on db-7' \\(00000000-0000-4000-8000-000000000043\\), ` +
              'not confirmed since \\S+Z: an install that failed may have left this claim',
          ),
        );
        // 1 (A), 2 (B, in both), 6 (the stranger), 11 (the claim).
        expect(fleetCheck(report, 'id space').message).toBe(
          '4,092 of 4,096 shard values left: 4 held by 4 databases and 0 worker leases',
        );
        // The claim expires at the end of time: still no worker lease, but no lease can take its value.
        expect(checkOf(report, 'workers', 0).message).toBe('0 of 4,096 worker ids leased, 4 held by databases (0.1 %)');

        // B without its registry: what the registry holds is not compared, and the doctor says so.
        const alone = await doctor([b.url]);
        expect(alone.code).toBe(0);
        expect(alone.report.idSpace!.checks.map((c) => [c.name, c.status])).toEqual([
          ['registry', 'warn'],
          ['id space', 'ok'],
        ]);
        expect(fleetCheck(alone.report, 'registry').message).toMatch(
          new RegExp(
            `^${escapeRegExp(labelB!)} registers its shards in .* \\(${await databaseIdOf(a)}\\), which was not given: `,
          ),
        );

        // B's configured shard registered for another database: a clash, named by the registry's row.
        await register(a, 2, stranger, 'stranger on db-9');
        const taken = await doctor([a.url, b.url]);
        expect(taken.code).toBe(1);
        expect(fleetCheck(taken.report, 'shard 2').message).toBe(
          `shard 2: configured on ${labelB} and registered in ${labelA} for database 'stranger on db-9' ` +
            `(${stranger}): their ids collide`,
        );
        expect(taken.stderr).toBe('sheaf: 1 check failed: shard 2 in the id space (SHARD_TAKEN)\n');
      },
      cliTimeout,
    );

    it(
      'compares a database given under two URLs once, by its node identity (PostgreSQL) or database_id',
      async () => {
        const [a, b] = await pair({ shard: 1 }, { shard: 2 });
        await lease(a, 9, 'pid 12 on host');
        // Another spelling of the same database: a harmless connection option.
        const twice = `${a.url}?${a.dialect === 'postgres' ? 'application_name=doctor' : 'connectTimeout=10000'}`;
        const { code, report } = await doctor([a.url, twice, b.url]);
        expect(code).toBe(0);
        const [labelA, labelTwice, labelB] = report.databases.map((database) => database.database);
        expect(report.idSpace!.databases).toEqual([labelA, labelB]);
        expect(fleetCheck(report, 'same database')).toMatchObject({
          status: 'warn',
          message: `${labelTwice} is ${labelA} (${await sameBy(a)}): compared once, not with itself`,
        });
        // Not a clash with itself: its shard and its lease counted once.
        expect(checkOf(report, 'shard', 1).status).toBe('ok');
        expect(fleetCheck(report, 'id space').message).toBe(
          '4,093 of 4,096 shard values left: 3 held by 2 databases and 1 worker lease',
        );
      },
      cliTimeout,
    );
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
