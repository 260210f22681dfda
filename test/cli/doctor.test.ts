import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineLayout,
  install,
  mysql2Executor,
  pgExecutor,
  pgliteExecutor,
  type SqlExecutor,
  sqlVersion,
} from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { lastIdCheck } from '../../packages/cli/src/doctor/last-id-check.js';
import { saturationCheck } from '../../packages/cli/src/doctor/saturation-check.js';
import { skewCheck } from '../../packages/cli/src/doctor/skew-check.js';
import { describeTargets } from '../support/database.js';
import { pgClock } from '../support/pg-clock.js';
import { openPgliteDir, unpackPgliteDir } from '../support/pglite-template.js';
import { queryState } from '../support/state-sql.js';
import { mysqlUrl, pgUrl, type TargetName, withDatabase } from '../support/targets.js';
import { dialectOf, nextIdSql, urlFor } from './cli-targets.js';
import { type CheckJson, type DoctorJson, doctor } from './doctor-run.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test, and PGlite boots in each one (1 to 2 s on a busy machine).
const cliTimeout = 120_000;

/** The named check of the report's `index`th database; fails when it is missing. */
function checkOf(report: DoctorJson, name: string, index = 0): CheckJson {
  const found = report.databases[index]?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check "${name}" in ${JSON.stringify(report.databases[index])}`);
  return found;
}

const created: { target: TargetName; name: string }[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const { target, name } of created) {
    await onServer(target, `drop database if exists ${name}`);
    // MySQL/MariaDB: sheaf's own database beside it, which install() made.
    if (target === 'mariadb') await onServer(target, `drop database if exists sheaf_${name}`);
  }
});

/** A database of its own for one test (a fresh PGlite directory on pglite), dropped when the file ends. */
async function scratch(target: TargetName): Promise<string> {
  if (target === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'sheaf-doctor-'));
    dirs.push(dir);
    // An empty cluster from the run's template: the CLI would spend seconds on initdb.
    unpackPgliteDir(join(dir, 'data'));
    return `pglite:${join(dir, 'data')}`;
  }
  const name = `sheaf_doctor_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await onServer(target, `create database ${name}`);
  created.push({ target, name });
  return withDatabase(target === 'postgres' ? pgUrl : mysqlUrl, name);
}

async function onServer(target: TargetName, statement: string): Promise<void> {
  await withExecutor(target === 'postgres' ? pgUrl : mysqlUrl, (sql) => sql.query(statement));
}

/** Runs `work` on one connection to the database behind a CLI URL (a PGlite directory is created). */
async function withExecutor<T>(url: string, work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
  if (url.startsWith('pglite:')) {
    const db = await openPgliteDir(url.slice('pglite:'.length));
    return work(pgliteExecutor(db)).finally(() => db.close());
  }
  if (url.startsWith('mysql:')) {
    const connection = await mysql.createConnection({ uri: url });
    return work(mysql2Executor(connection)).finally(() => connection.end());
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return work(pgExecutor(client)).finally(() => client.end());
}

const call = {
  postgres: {
    segment: 'select sheaf.create_segment($1, $2, $3)',
    alloc: "select * from sheaf.alloc_segment('orders')",
    lease: "select * from sheaf.lease_worker('doctor test', 600000, $1)",
    nextIds: 'select count(*) from sheaf.next_ids(2000)',
  },
  mysql: {
    segment: 'call {state}.sheaf_create_segment(?, ?, ?, null)',
    alloc: "call sheaf_alloc_segment('orders', null)",
    lease: "call sheaf_lease_worker('doctor test', 600000, ?)",
    nextIds: 'call sheaf_next_ids(2000)',
  },
};

const maxBigint = (1n << 63n) - 1n;

describeTargets('sheaf doctor', (db, target) => {
  const dialect = dialectOf(target);

  it(
    'passes a healthy install with exit 0, as a table and as JSON',
    async () => {
      const url = await urlFor(target, db());
      expect((await sheaf(['install', '--url', url, '--shard', '9'])).code).toBe(0);
      await withExecutor(url, async (sql) => {
        await sql.query(nextIdSql[dialect]);
        await queryState(sql, call[dialect].segment, ['orders', 1000, 0]);
        await sql.query(call[dialect].alloc);
        await sql.query(call[dialect].lease, [4095]);
      });

      const text = await sheaf(['doctor', '--url', url]);
      expect(text.stderr).toBe('');
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(new RegExp(`^  ok +sql version +version ${sqlVersion(dialect)}, up to date$`, 'm'));
      expect(text.stdout).toMatch(/^ {2}ok +layout +sheaf runs out at 2093-09-06T15:47:35\.551Z, in 66\.\d years$/m);
      expect(text.stdout).toMatch(/^ {2}ok +shard +shard 9, the only database checked/m);
      expect(text.stdout).toMatch(/^ {2}ok +workers +1 of 4,096 worker ids leased/m);
      // Triggers are checked on MySQL only, node identity and replication on PostgreSQL (docs/cli.md).
      const checked = dialect === 'postgres' ? 12 : 11;
      expect(text.stdout).toMatch(
        dialect === 'postgres'
          ? /^ {2}ok +grants +no role has more than an application needs$/m
          : /^ {2}ok +grants +no account but sheaf's owner can read or write sheaf's database \(global privileges not judged\)$/m,
      );
      expect(text.stdout).toMatch(/^ {2}ok +ownership +sheaf's owner owns all of sheaf$/m);
      expect(text.stdout).toMatch(new RegExp(`^1 database: ${checked} ok, 0 warnings, 0 failures$`, 'm'));

      // DATABASE_URL stands in for --url.
      const run = await sheaf(['doctor', '--json'], { DATABASE_URL: url });
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as DoctorJson;
      expect(report).toMatchObject({ ok: true, summary: { ok: checked, warn: 0, fail: 0 } });
      expect(report.databases).toHaveLength(1);
      expect(report.databases[0]).toMatchObject({ dialect });
      expect(report.databases[0]!.checks.map((c) => [c.name, c.status])).toEqual([
        ['sql version', 'ok'],
        ['clock skew', 'ok'],
        ['layout', 'ok'],
        ['shard', 'ok'],
        ...(dialect === 'postgres' ? [['node identity', 'ok']] : []),
        ['last id', 'ok'],
        ['saturation', 'ok'],
        ['workers', 'ok'],
        ['segment orders', 'ok'],
        ['grants', 'ok'],
        ['ownership', 'ok'],
        ...(dialect === 'postgres' ? [['replication', 'ok']] : [['triggers', 'ok']]),
      ]);
      if (dialect === 'postgres') {
        expect(checkOf(report, 'node identity').message).toMatch(/^shard 9 is bound to this node, \d+\/\d+$/);
        expect(checkOf(report, 'replication').message).toBe(
          'no publication or pglogical replication set includes schema sheaf',
        );
      }
      expect(checkOf(report, 'last id').message).toMatch(/^last id's millisecond \S+Z, \d/);
      expect(checkOf(report, 'clock skew').details).toMatchObject({ skewMs: expect.any(Number) });
      // Bigints are JSON strings.
      expect(checkOf(report, 'segment orders').details).toMatchObject({
        maxId: '1000',
        step: 1000,
        idsLeft: (maxBigint - 1000n).toString(),
      });
    },
    cliTimeout,
  );

  it(
    'fails with exit 1 where sheaf is not installed, naming the database',
    async () => {
      const url = await scratch(target);
      await withExecutor(url, (sql) => sql.query('select 1'));
      const { code, report, stderr } = await doctor([url]);
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      const name = report.databases[0]!.database;
      expect(name).toMatch(target === 'pglite' ? /^PGlite at / : /sheaf_doctor_/);
      expect(checkOf(report, 'sql version')).toMatchObject({
        status: 'fail',
        message: `sheaf is not installed (this package installs version ${sqlVersion(dialect)}); run sheaf install`,
      });
      expect(stderr).toBe(`sheaf: 1 check failed: sql version on ${name} (NOT_INSTALLED)\n`);
    },
    cliTimeout,
  );

  it(
    'fails with exit 1 when two databases have the same shard, naming both',
    async () => {
      const [first, second] = [await scratch(target), await scratch(target)];
      for (const url of [first, second]) expect((await sheaf(['install', '--url', url, '--shard', '5'])).code).toBe(0);
      const { code, report, stderr } = await doctor([first, second]);
      expect(code).toBe(1);
      const [a, b] = report.databases.map((database) => database.database);
      // PGlite: the test directories are unpacked from one template cluster, so they share its node
      // identity, as physical clones do; the fix then says so.
      const clone =
        target === 'pglite' ? / \(a physical clone: one node identity \d+\/\d+ on two servers\)/.source : '';
      const fix = `give one of them a new shard: sheaf install --url ${second} --shard <N>${clone ? ' --clone' : ''}`;
      expect(checkOf(report, 'shard', 0)).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(
          new RegExp(
            `^shard 5 is also configured on ${escapeRegExp(b!)}${clone}: their ids collide; ${escapeRegExp(fix)}$`,
          ),
        ),
      });
      expect(checkOf(report, 'shard', 1).message).toMatch(
        new RegExp(
          `^shard 5 is also configured on ${escapeRegExp(a!)}${clone}: their ids collide; ${escapeRegExp(fix)}$`,
        ),
      );
      expect(stderr).toBe(`sheaf: 2 checks failed: shard on ${a}, shard on ${b} (SHARD_TAKEN)\n`);

      expect((await sheaf(['install', '--url', second, '--shard', '6'])).code).toBe(0);
      const fixed = await doctor([first, second]);
      expect(fixed.code).toBe(0);
      expect(checkOf(fixed.report, 'shard', 1)).toMatchObject({
        status: 'ok',
        message: 'shard 6, unique among the 2 databases checked',
      });
    },
    cliTimeout,
  );

  it(
    'warns when the server clock is behind the last id (a clock stepped back)',
    async () => {
      const url = await scratch(target);
      await withExecutor(url, async (sql) => {
        await install(sql, { shard: 2, testClock: true });
        // Ids of this session are a minute ahead: to the real clock, the server stepped back a minute.
        if (dialect === 'postgres') await pgClock.offset(sql, 60_000);
        else await sql.query('set @sheaf_clock_offset_ms = 60000');
        await sql.query(nextIdSql[dialect]);
      });
      const { code, report } = await doctor([url]);
      expect(code).toBe(0);
      const lastId = checkOf(report, 'last id');
      expect(lastId).toMatchObject({ status: 'warn' });
      expect(lastId.message).toMatch(/^the server clock is \d+(\.\d)? s behind the last id \(\S+Z\): new ids borrow/);
      // A minute, less the time the CLI took to start and connect.
      expect(lastId.details!.leadMs).toBeGreaterThan(20_000);
      expect(lastId.details!.leadMs).toBeLessThanOrEqual(60_000);
      expect(checkOf(report, 'saturation')).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(/^ids run \d{2},\d{3} ms ahead of the server clock, none issued in \d+ ms/),
      });
    },
    cliTimeout,
  );

  it.skipIf(target === 'pglite')(
    'warns when the generator runs above its capacity (server targets: PGlite is one connection, held by the CLI)',
    async () => {
      const url = await scratch(target);
      // 2 ids per millisecond: a batch of 2,000 is a second of ids, so a few sessions outrun it many
      // times over even on a busy machine (at 16 per ms, and once at 4 on a slow one, MariaDB's
      // batches under load kept up with the clock: each of its ids is a claim there).
      const tiny = defineLayout({ name: 'tiny', epoch: '2024-01-01', timeBits: 41, shardBits: 12, sequenceBits: 1 });
      await withExecutor(url, (sql) => install(sql, { shard: 1, layout: tiny }));
      let running = true;
      // doctor starts once every session has taken a batch: on a busy machine connecting can take
      // longer than doctor's window, which then saw no load at all.
      let started: () => void = () => undefined;
      let waiting = 3;
      const allStarted = new Promise<void>((resolve) => {
        started = () => {
          waiting -= 1;
          if (waiting === 0) resolve();
        };
      });
      const load = Array.from({ length: 3 }, () =>
        withExecutor(url, async (sql) => {
          await sql.query(call[dialect].nextIds);
          started();
          while (running) await sql.query(call[dialect].nextIds);
        }),
      );
      await Promise.race([allStarted, Promise.all(load)]);
      const { report } = await doctor([url]).finally(() => {
        running = false;
      });
      await Promise.all(load);
      const saturation = checkOf(report, 'saturation');
      expect(saturation.status).toBe('warn');
      expect(saturation.message).toMatch(/^(over capacity, \d+ %|borrowing at \d+ % of capacity): \S+ ms of ids/);
      expect(saturation.details).toMatchObject({ capacityPerMs: 2 });
      expect(saturation.details!.advancedMs).toBeGreaterThan(0);
      expect(checkOf(report, 'last id').status).toBe('warn');
    },
    cliTimeout,
  );

  it(
    'warns of a layout running out within 5 years and of worker ids near exhaustion, fails when all are leased',
    async () => {
      const url = await scratch(target);
      // 37 time bits last 4.4 years from 2024; 3 shard bits give 8 worker ids.
      const short = defineLayout({ name: 'short', epoch: '2024-01-01', timeBits: 37, shardBits: 3, sequenceBits: 10 });
      await withExecutor(url, async (sql) => {
        await install(sql, { layout: short });
        // The database holds its shard, 0: six leases leave one value free.
        for (let i = 0; i < 6; i++) await sql.query(call[dialect].lease, [7]);
      });
      const { code, report } = await doctor([url]);
      expect(code).toBe(0);
      expect(checkOf(report, 'layout')).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(
          /^short runs out at 2028-05-09T\S+Z, in [1-4]\.\d years: next_id\(\) fails after it/,
        ),
      });
      expect(checkOf(report, 'workers')).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(/^6 of 8 worker ids leased, 1 held by databases \(87\.5 %\), above 80 %/),
      });

      await withExecutor(url, (sql) => sql.query(call[dialect].lease, [7]));
      const full = await doctor([url]);
      expect(full.code).toBe(1);
      expect(checkOf(full.report, 'workers')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^7 of 8/),
      });
      expect(full.stderr).toMatch(/^sheaf: 1 check failed: workers on .* \(WORKERS_EXHAUSTED\)\n$/);
    },
    cliTimeout,
  );

  it(
    'warns of a segment close to its limit and fails on an exhausted one',
    async () => {
      const url = await scratch(target);
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      await withExecutor(url, async (sql) => {
        // 1,000 allocations of 1,000 left: 10.4 days at one per 15 minutes.
        await queryState(sql, call[dialect].segment, ['near', 1000, (maxBigint - 1_000_000n).toString()]);
        await queryState(sql, call[dialect].segment, ['far', 1000, '0']);
      });
      const { code, report } = await doctor([url]);
      expect(code).toBe(0);
      expect(checkOf(report, 'segment near')).toMatchObject({ status: 'warn' });
      expect(checkOf(report, 'segment near').message).toMatch(
        /^1,000 allocations of 1,000 left below 9223372036854775807 \(10\.4 days at one per 15 min\); last allocated \S+Z \(/,
      );
      expect(checkOf(report, 'segment far')).toMatchObject({ status: 'ok' });

      await withExecutor(url, (sql) =>
        queryState(sql, call[dialect].segment, ['full', 1000, (maxBigint - 10n).toString()]),
      );
      const exhausted = await doctor([url]);
      expect(exhausted.code).toBe(1);
      expect(checkOf(exhausted.report, 'segment full')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^max_id 9223372036854775797 \+ step 1000 exceeds 9223372036854775807/),
      });
      expect(exhausted.stderr).toMatch(/\(SEGMENT_EXHAUSTED\)\n$/);
    },
    cliTimeout,
  );
});

describe('sheaf doctor without a database', () => {
  it('exits 2 on usage errors', async () => {
    const cases: [string[], RegExp][] = [
      [['doctor', '--bogus'], /^sheaf doctor: Unknown option '--bogus'/],
      [['doctor'], /^sheaf doctor: missing --url \(or the DATABASE_URL environment variable\)/],
      [['doctor', '--url', 'a', '--url', 'a'], /^sheaf doctor: --url a is given twice/],
      [['doctor', '--url', 'ftp://host/db'], /^sheaf doctor: --url ftp:\/\/… is not supported/],
      [['doctor', '--url'], /^sheaf doctor: Option '--url <value>' argument missing/],
    ];
    const runs = await Promise.all(cases.map(([args]) => sheaf(args)));
    runs.forEach((run, i) => {
      expect(run.code, cases[i]![0].join(' ')).toBe(2);
      expect(run.stderr).toMatch(cases[i]![1]);
    });
  });

  it('reports an unreachable database as a failed check and exits 1', async () => {
    const { code, report, stderr } = await doctor(['postgres://nobody@127.0.0.1:1/none']);
    expect(code).toBe(1);
    expect(report.databases[0]!.checks).toEqual([
      { name: 'database', status: 'fail', message: expect.stringMatching(/ECONNREFUSED/) },
    ]);
    // A driver error has no sheaf code: the line has none either, and reads like every other failure.
    expect(stderr).toBe('sheaf: 1 check failed: database on postgres://nobody@127.0.0.1:1/none\n');
  });

  it('lists doctor in sheaf --help', async () => {
    expect((await sheaf(['--help'])).stdout).toMatch(/^ {2}doctor +check databases: /m);
  });
});

describe('doctor thresholds', () => {
  it('judges clock skew on the smallest skew the round trip allows', () => {
    expect(skewCheck({ skewMs: 90, uncertaintyMs: 1, rttMs: 0 }).status).toBe('ok');
    expect(skewCheck({ skewMs: -150, uncertaintyMs: 1, rttMs: 0 })).toMatchObject({
      status: 'warn',
      message: 'server clock 150 ms ± 1 ms behind this host (warns above 100 ms): check NTP on both',
    });
    expect(skewCheck({ skewMs: 150, uncertaintyMs: 60, rttMs: 118 }).status).toBe('ok');
    expect(skewCheck({ skewMs: 1500, uncertaintyMs: 1, rttMs: 0 })).toMatchObject({
      status: 'fail',
      code: 'SERVER_CONFIG',
    });
  });

  it('fails on a counter more than a minute ahead that is not outrunning the clock, or at the layout end', () => {
    const facts = { lookaheadMs: 7, name: 'the counter', layoutEndMs: 5_000_000, repair: 'repair it' };
    const window = (lastA: number, lastB: number) => ({
      first: { lastIdMs: lastA, serverMs: 1000 },
      second: { lastIdMs: lastB, serverMs: 1200 },
    });
    expect(lastIdCheck(window(61_000, 61_100), facts)).toMatchObject({ status: 'warn' });
    expect(lastIdCheck(window(61_300, 61_300), facts)).toMatchObject({
      status: 'fail',
      code: 'CLOCK_MOVED_BACKWARDS',
      message: expect.stringMatching(
        /^the counter is at 1970-01-01T00:01:01\.300Z, 60\.1 s ahead of the server clock \(1970-01-01T00:00:01\.200Z; fails above 60 s\): someone moved it, or the clock stepped back/,
      ),
    });
    // A burst above capacity grows the lead while watched: the saturation check's warning, not a failure.
    expect(lastIdCheck(window(90_000, 90_500), facts)).toMatchObject({ status: 'warn' });
    expect(lastIdCheck(window(5_000_000, 5_000_000), facts)).toMatchObject({
      status: 'fail',
      code: 'TIME_EXHAUSTED',
      message: expect.stringMatching(/claims fail \(TIME_EXHAUSTED\); someone moved it there; repair it$/),
    });
  });

  it('reads milliseconds advanced while ahead as ids in units of the capacity', () => {
    const window = (lastA: number, lastB: number) => ({
      first: { lastIdMs: lastA, serverMs: 1000 },
      second: { lastIdMs: lastB, serverMs: 1200 },
    });
    expect(saturationCheck(window(900, 1150), 0, 10).status).toBe('ok');
    expect(saturationCheck(window(1100, 1500), 0, 10).message).toBe(
      'over capacity, 200 %: 400 ms of ids (409,600) in 200 ms; ids run 300 ms ahead of the server clock',
    );
    expect(saturationCheck(window(1100, 1250), 0, 10).message).toMatch(/^borrowing at 75 % of capacity: 150 ms/);
    // MySQL's hot sessions claim up to 7 ms ahead: not borrowing.
    expect(saturationCheck(window(1190, 1205), 7, 10).status).toBe('ok');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
