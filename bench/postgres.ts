// PostgreSQL: sheaf.next_id() against bigserial, identity, gen_random_uuid() and Instagram's classic
// function, all measured by pgbench in this run; plus batches and a duplicate count.
import { install, pgExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { withDatabase } from '../test/support/targets.js';
import { pgbench } from './pgbench.js';
import { type BenchSuite, markdownTable, rate, ratio, type TargetCheck, targetTable } from './suite.js';

const serverUrl = process.env.SHEAF_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.SHEAF_BENCH_SECONDS ?? 5);
const rounds = Number(process.env.SHEAF_BENCH_ROUNDS ?? 2);
const clients = 8;

// Instagram's function as published in 2011 (shard 5), with its clock as a parameter so the
// duplicate scenarios can freeze or step it.
const instagramSql = (clock: string) => `
  create or replace function instagram.next_id(out result bigint) as $$
  declare
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
  begin
    select nextval('instagram.table_id_seq') % 1024 into seq_id;
    select ${clock} into now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
  end;
  $$ language plpgsql`;
const realClock = 'floor(extract(epoch from clock_timestamp()) * 1000)';
const testClock = "nullif(current_setting('sheaf.clock_ms', true), '')::bigint";

interface Candidate {
  name: string;
  table: string;
  key: string;
  select?: string;
}

const candidates: Candidate[] = [
  { name: 'bigserial', table: 't_bigserial', key: 'id bigserial primary key', select: "nextval('seq')" },
  { name: 'identity', table: 't_identity', key: 'id bigint generated always as identity primary key' },
  {
    name: 'gen_random_uuid()',
    table: 't_uuid',
    key: 'id uuid primary key default gen_random_uuid()',
    select: 'gen_random_uuid()',
  },
  {
    name: 'Instagram next_id()',
    table: 't_instagram',
    key: 'id bigint primary key default instagram.next_id()',
    select: 'instagram.next_id()',
  },
  {
    name: 'sheaf.next_id()',
    table: 't_sheaf',
    key: 'id bigint primary key default sheaf.next_id()',
    select: 'sheaf.next_id()',
  },
];

async function createDatabase(
  name: string,
  testClockInstall: boolean,
): Promise<{ url: string; sql: SqlExecutor; close(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sql = pgExecutor(client);
  await install(sql, { shard: 5, testClock: testClockInstall });
  await sql.query('create schema instagram');
  await sql.query('create sequence instagram.table_id_seq');
  await sql.query('create sequence seq');
  await sql.query(instagramSql(testClockInstall ? testClock : realClock));
  return {
    url,
    sql,
    async close() {
      await client.end();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** Best of `rounds` runs, the candidates interleaved so drift hits them all alike. */
async function measure(
  db: { url: string; sql: SqlExecutor },
  workload: (candidate: Candidate) => string | undefined,
  prepare: (candidate: Candidate) => Promise<void>,
  perTransaction: number,
): Promise<Map<string, Measured>> {
  const best = new Map<string, Measured>();
  for (let round = 0; round < rounds; round++) {
    for (const candidate of candidates) {
      const script = workload(candidate);
      if (!script) continue;
      await prepare(candidate);
      const run = pgbench({ url: db.url, script, clients, seconds });
      const previous = best.get(candidate.name) ?? { rate: 0, aborts: [] };
      best.set(candidate.name, {
        rate: Math.max(previous.rate, run.tps * perTransaction),
        aborts: run.aborted ? [...previous.aborts, run.aborted] : previous.aborts,
      });
    }
  }
  return best;
}

/** The best rate of a candidate, and the errors that stopped a client early in any round. */
interface Measured {
  rate: number;
  aborts: string[];
}

function table(title: string, unit: string, results: Map<string, Measured>, baseline: string): string {
  const base = results.get(baseline)?.rate ?? Number.NaN;
  const rows = [...results].map(([name, { rate: value, aborts }]) => [
    name,
    rate(value),
    ratio(value, base),
    aborts.length === 0 ? '' : `${aborts.length} of ${rounds} runs aborted: ${aborts[0]}`,
  ]);
  return `#### ${title}\n\n${markdownTable(['generator', unit, `vs ${baseline}`, 'errors'], rows)}`;
}

async function duplicates(): Promise<{ markdown: string; sheaf: number }> {
  const db = await createDatabase('sheaf_bench_dup', true);
  const count = async (select: string, script: [number, number][]) =>
    db.sql.session(async (session) => {
      const ids: string[] = [];
      for (const [clock, n] of script) {
        await session.query("select set_config('sheaf.clock_ms', $1, false)", [String(clock)]);
        const rows = await session.query<{ id: string }>(`select ${select} as id from generate_series(1, ${n})`);
        ids.push(...rows.map((row) => row.id));
      }
      await session.query("select set_config('sheaf.clock_ms', '', false)");
      return ids.length - new Set(ids).size;
    });
  const t = Date.now() + 60_000;
  const scenarios: [string, [number, number][]][] = [
    ['5,000 ids in one frozen millisecond', [[t, 5000]]],
    [
      '1,024 ids, 1,024 in the next ms, clock back 1 ms, 1,024 more',
      [
        [t + 10, 1024],
        [t + 11, 1024],
        [t + 10, 1024],
      ],
    ],
  ];
  const rows: string[][] = [];
  let sheafDuplicates = 0;
  for (const [scenario, script] of scenarios) {
    const sheaf = await count('sheaf.next_id()', script);
    sheafDuplicates += sheaf;
    rows.push([scenario, String(await count('instagram.next_id()', script)), String(sheaf)]);
  }
  // The natural race: a backend pre-empted between nextval() and the clock pairs an old residue
  // with a new millisecond. Real clocks, 8 clients, 100-row inserts into tables without a key.
  await db.sql.query("select set_config('sheaf.clock_ms', '', false)");
  await db.sql.query(instagramSql(realClock));
  for (const name of ['instagram', 'sheaf']) {
    await db.sql.query(`create unlogged table d_${name} (id bigint default ${name}.next_id(), v integer)`);
  }
  const natural = [];
  for (const name of ['instagram', 'sheaf']) {
    pgbench({
      url: db.url,
      script: `insert into d_${name} (v) select g from generate_series(1, 100) g;`,
      clients,
      seconds,
    });
    const [row] = await db.sql.query<{ total: string; dups: string }>(
      `select count(*) as total, count(*) - count(distinct id) as dups from d_${name}`,
    );
    natural.push(`${row?.dups} of ${rate(Number(row?.total))}`);
    if (name === 'sheaf') sheafDuplicates += Number(row?.dups);
  }
  rows.push([`8 clients, 100-row inserts for ${seconds} s, real clock`, natural[0]!, natural[1]!]);
  await db.close();
  return {
    markdown: `#### Duplicates\n\n${markdownTable(['scenario', 'Instagram next_id()', 'sheaf.next_id()'], rows)}`,
    sheaf: sheafDuplicates,
  };
}

async function batches(db: {
  url: string;
  sql: SqlExecutor;
}): Promise<{ markdown: string; single: number; batch: number }> {
  const one = (script: string, perTransaction: number) =>
    pgbench({ url: db.url, script, clients: 1, seconds }).tps * perTransaction;
  const single = one('select sheaf.next_id();', 1);
  const series = one('select count(sheaf.next_id()) from generate_series(1, 1000);', 1000);
  const batch = one('select count(*) from sheaf.next_ids(1000);', 1000);
  const nextval = one("select count(nextval('seq')) from generate_series(1, 1000);", 1000);
  const rows = [
    ["1,000 × nextval('seq') in one statement", rate(nextval), ratio(nextval, single)],
    ['sheaf.next_id(), one per statement', rate(single), ratio(single, single)],
    ['1,000 × sheaf.next_id() in one statement', rate(series), ratio(series, single)],
    ['sheaf.next_ids(1000)', rate(batch), ratio(batch, single)],
  ];
  return {
    markdown: `#### One connection\n\n${markdownTable(['form', 'ids/s', 'vs single calls'], rows)}`,
    single,
    batch,
  };
}

/** Issue 3's targets, judged on this run's numbers. */
function targets(
  insert1: Map<string, Measured>,
  insert100: Map<string, Measured>,
  { single, batch }: { single: number; batch: number },
  sheafDuplicates: number,
): TargetCheck[] {
  const share = (results: Map<string, Measured>) =>
    (results.get('sheaf.next_id()')?.rate ?? 0) / (results.get('bigserial')?.rate ?? Number.NaN);
  const percent = (value: number) => `${Math.round(value * 100)} %`;
  return [
    { target: '1-row INSERT ≥ 90 % of bigserial', measured: percent(share(insert1)), met: share(insert1) >= 0.9 },
    {
      target: '100-row INSERT ≥ 75 % of bigserial (stretch)',
      measured: percent(share(insert100)),
      met: share(insert100) >= 0.75,
    },
    { target: '`next_ids(1000)` ≥ 1M ids/s on one connection', measured: `${rate(batch)} ids/s`, met: batch >= 1e6 },
    {
      target: '`next_ids` batches ≥ 10× single calls',
      measured: `${Math.round(batch / single)}×`,
      met: batch >= 10 * single,
    },
    {
      target: 'no duplicate from sheaf.next_id()',
      measured: `${sheafDuplicates} duplicates`,
      met: sheafDuplicates === 0,
    },
  ];
}

const suite: BenchSuite = {
  name: 'postgres',
  async run() {
    const db = await createDatabase('sheaf_bench', false);
    for (const candidate of candidates)
      await db.sql.query(`create table ${candidate.table} (${candidate.key}, v integer)`);
    const truncate = async (candidate: Candidate) => {
      await db.sql.query(`truncate ${candidate.table}`);
      await db.sql.query('checkpoint');
    };
    const none = async () => undefined;
    const select = await measure(db, (c) => c.select && `select ${c.select};`, none, 1);
    const insert1 = await measure(db, (c) => `insert into ${c.table} (v) values (1);`, truncate, 1);
    const insert100 = await measure(
      db,
      (c) => `insert into ${c.table} (v) select g from generate_series(1, 100) g;`,
      truncate,
      100,
    );
    const oneConnection = await batches(db);
    await db.close();
    const dups = await duplicates();
    return [
      `### PostgreSQL (${clients} clients, best of ${rounds} × ${seconds} s, pgbench)`,
      targetTable(targets(insert1, insert100, oneConnection, dups.sheaf)),
      table('SELECT one id', 'ids/s', select, 'bigserial'),
      table('1-row INSERT', 'rows/s', insert1, 'bigserial'),
      table('100-row INSERT', 'rows/s', insert100, 'bigserial'),
      oneConnection.markdown,
      dups.markdown,
    ].join('\n\n');
  },
};

export default suite;
