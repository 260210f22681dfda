// MySQL/MariaDB: sheaf_next_id() against UUID()/UUID_SHORT(), tickets, and INSERTs through the sheaf
// trigger against AUTO_INCREMENT and app-assigned ids. 8 clients; each round runs every candidate
// once, in an order rotated by one per round, and a candidate's ratio is taken to its baseline of
// the same round: other load on the machine moves whole rounds, less so the ratios within one.
import { install, mysql2Executor, mysqlState, presets, sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { type BenchSuite, markdownTable, rate, type TargetCheck, targetTable } from './suite.js';

const serverUrl = process.env.SHEAF_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const clients = 8;
const roundMs = Number(process.env.SHEAF_BENCH_ROUND_MS ?? 1_500);
const rounds = Number(process.env.SHEAF_BENCH_ROUNDS ?? 5);

interface Candidate {
  readonly name: string;
  /** The statement for client `w`'s `i`-th call, and how many ids or rows it makes. */
  statement(w: number, i: number): [string, number];
}

async function measure(pool: mysql.Pool, candidate: Candidate): Promise<number> {
  const end = Date.now() + roundMs;
  let count = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, w) => {
      const connection = await pool.getConnection();
      try {
        for (let i = 0; Date.now() < end; i++) {
          const [sql, n] = candidate.statement(w, i);
          await connection.query(sql);
          count += n;
        }
      } finally {
        connection.release();
      }
    }),
  );
  return (count * 1000) / roundMs;
}

interface Result {
  /** Median rate over the rounds. */
  readonly rate: number;
  /** Per-round ratios to the baseline, sorted. */
  readonly ratios: readonly number[];
}

const median = (sorted: readonly number[]) => sorted[sorted.length >> 1] as number;

/** Rounds of every candidate in rotated order; ratios to `baseline` measured in the same round. */
async function run(pool: mysql.Pool, candidates: readonly Candidate[], baseline: string): Promise<Map<string, Result>> {
  const samples = candidates.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < candidates.length; i++) {
      const index = (i + round) % candidates.length;
      samples[index]?.push(await measure(pool, candidates[index] as Candidate));
    }
  }
  const base = samples[candidates.findIndex((c) => c.name === baseline)] ?? [];
  return new Map(
    candidates.map((c, index) => {
      const own = samples[index] ?? [];
      const ratios = own.map((value, round) => value / (base[round] ?? 1)).sort((a, b) => a - b);
      return [c.name, { rate: median([...own].sort((a, b) => a - b)), ratios }];
    }),
  );
}

const percent = (value: number) => `${Math.round(value * 100)} %`;
/** Median ratio, then min – max over the rounds. */
const ratioCells = ({ ratios }: Result) => [
  percent(median(ratios)),
  `${percent(ratios[0] ?? 0)} – ${percent(ratios.at(-1) ?? 0)}`,
];

const values = (rows: number, row: (j: number) => string) => Array.from({ length: rows }, (_, j) => row(j)).join(', ');

function insertCandidates(rows: number): Candidate[] {
  // App-assigned ids: shaped like sheaf ids (time in the high bits), unique over all rounds.
  let next = BigInt(Date.now()) << 22n;
  const appId = () => {
    next += 1n;
    return next;
  };
  return [
    {
      name: `AUTO_INCREMENT, ${rows}-row INSERT`,
      statement: () => [`insert into b_ai (v) values ${values(rows, () => '(1)')}`, rows],
    },
    {
      name: `sheaf trigger, ${rows}-row INSERT`,
      statement: () => [`insert into b_sheaf (v) values ${values(rows, () => '(1)')}`, rows],
    },
    // Keys without a trigger that sheaf does not ship (docs/sql/mysql.md, Keys without a trigger):
    // what such a key costs, beside the trigger's cost.
    {
      name: `DEFAULT NEXTVAL(s) (not sheaf), ${rows}-row INSERT`,
      statement: () => [`insert into b_seq (v) values ${values(rows, () => '(1)')}`, rows],
    },
    {
      name: `DEFAULT NEXTVAL(s) mapped to the layout (not sheaf), ${rows}-row INSERT`,
      statement: () => [`insert into b_seq_layout (v) values ${values(rows, () => '(1)')}`, rows],
    },
    // What any trigger costs (docs/benchmarks.md, What limits the MariaDB trigger): one that only
    // counts up a user variable, and one that also calls a function reading sheaf's settings row on
    // each statement's first row, as sheaf's checks its session cache; neither claims nor checks.
    {
      name: `trigger from a user variable (not sheaf), ${rows}-row INSERT`,
      statement: () => [`insert into b_floor (v) values ${values(rows, () => '(1)')}`, rows],
    },
    {
      name: `trigger reading the settings row once a statement (not sheaf), ${rows}-row INSERT`,
      statement: () => [`insert into b_read (v) values ${values(rows, () => '(1)')}`, rows],
    },
    {
      name: `app-assigned ids, ${rows}-row INSERT`,
      statement: () => [`insert into b_app (id, v) values ${values(rows, () => `(${appId()}, 1)`)}`, rows],
    },
  ];
}

const idCandidates: Candidate[] = [
  { name: 'sheaf_next_id()', statement: () => ['select sheaf_next_id()', 1] },
  { name: 'sheaf_next_ids(1000)', statement: () => ['call sheaf_next_ids(1000)', 1000] },
  { name: "sheaf_next_ticket('b')", statement: () => ["select sheaf_next_ticket('b')", 1] },
  {
    name: 'Flickr REPLACE INTO (Aria) + LAST_INSERT_ID()',
    statement: () => ["replace into b_flickr (stub) values ('a')", 1],
  },
  { name: 'UUID()', statement: () => ['select uuid()', 1] },
  { name: 'UUID_SHORT()', statement: () => ['select uuid_short()', 1] },
];

const suite: BenchSuite = {
  name: 'MySQL/MariaDB',
  async run() {
    const name = `sheaf_bench_${Date.now().toString(36)}`;
    const admin = await mysql.createConnection({ uri: serverUrl });
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const pool = mysql.createPool({ uri: url.toString(), connectionLimit: clients });
    try {
      const executor = mysql2Executor(pool);
      await install(executor);
      await pool.query(`call ${mysqlState(name).stateSql}.sheaf_create_ticket('b', 1, 1)`);
      await pool.query(
        'create table b_flickr (id bigint not null auto_increment primary key, stub char(1) not null unique) engine = aria',
      );
      for (const table of ['b_ai', 'b_sheaf', 'b_floor', 'b_read']) {
        await pool.query(
          `create table ${table} (id bigint not null auto_increment primary key, v int) engine = innodb`,
        );
      }
      await pool.query('create table b_app (id bigint not null primary key, v int) engine = innodb');
      // The sheaf layout's fields from a plain counter n = tick · 2^10 + q: n + (n >> 10) · (4095 << 10)
      // + (shard << 10), n read once through an invisible column; the counter starts at the clock.
      const tick = BigInt(Date.now() - presets.sheaf.epoch) << 10n;
      for (const sequence of ['b_seq_s', 'b_seq_layout_s']) {
        await pool.query(`create sequence ${sequence} start with ${tick} cache 1000`);
      }
      await pool.query(
        'create table b_seq (id bigint not null primary key default nextval(b_seq_s), v int) engine = innodb',
      );
      await pool.query(
        `create table b_seq_layout (n bigint invisible default nextval(b_seq_layout_s), id bigint not null primary key default (n + (n >> 10) * ${4095 << 10} + ${1 << 10}), v int) engine = innodb`,
      );
      await pool.query(sheafTriggerSql('b_sheaf', 'id').create);
      // Each connection counts from its own connection_id() << 40: unique over all rounds.
      await pool.query(
        'create trigger b_floor before insert on b_floor for each row ' +
          'set new.id = (@b_floor := coalesce(@b_floor, connection_id() << 40) + 1)',
      );
      await pool.query(
        'create function b_read_first() returns bigint not deterministic reads sql data return (select ' +
          'if((@b_read_stmt := @@timestamp) is not null and shard_id >= 0, ' +
          '@b_read := coalesce(@b_read, connection_id() << 40) + 1, null) ' +
          `from ${mysqlState(name).stateSql}.sheaf_settings where singleton = 1)`,
      );
      await pool.query(
        'create trigger b_read before insert on b_read for each row ' +
          'if @b_read_stmt = @@timestamp then set new.id = (@b_read := @b_read + 1); else set new.id = b_read_first(); end if',
      );
      const [[server]] = await pool.query<mysql.RowDataPacket[]>('select version() as v');

      const ids = await run(pool, idCandidates, 'UUID_SHORT()');
      const idRows = idCandidates.map((c) => {
        const result = ids.get(c.name) as Result;
        return [c.name, rate(result.rate), ...ratioCells(result)];
      });
      const insertRows: unknown[][] = [];
      const checks: TargetCheck[] = [];
      for (const rows of [1, 100]) {
        const candidates = insertCandidates(rows);
        const got = await run(pool, candidates, candidates[0]?.name ?? '');
        for (const c of candidates) {
          const result = got.get(c.name) as Result;
          insertRows.push([c.name, rate(result.rate), ...ratioCells(result)]);
        }
        // Issue 16: the trigger at 80 % of AUTO_INCREMENT (median of the per-round ratios).
        for (const [prefix, share] of [
          ['sheaf trigger', 0.8],
          ['app-assigned ids', 0.95],
        ] as const) {
          const c = candidates.find((candidate) => candidate.name.startsWith(prefix));
          const result = got.get(c?.name ?? '') as Result;
          checks.push({
            target: `${c?.name} ≥ ${share * 100} % of AUTO_INCREMENT`,
            measured: `${percent(median(result.ratios))} (${ratioCells(result)[1]})`,
            met: median(result.ratios) >= share,
          });
        }
      }
      return [
        `## MySQL/MariaDB (${server?.v}, ${clients} clients, ${rounds} rotated rounds of ${roundMs} ms)`,
        '',
        'Rates: median over the rounds. Ratios: to the baseline of the same round, median and min – max.',
        '',
        markdownTable(['ids', 'ids/s', 'vs UUID_SHORT()', 'min – max'], idRows),
        '',
        markdownTable(['insert', 'rows/s', 'vs AUTO_INCREMENT', 'min – max'], insertRows),
        '',
        targetTable(checks),
      ].join('\n');
    } finally {
      await pool.end();
      await admin.query(`drop database if exists ${name}`);
      // sheaf's own database beside it, which install() made.
      await admin.query(`drop database if exists sheaf_${name}`);
      await admin.end();
    }
  },
};

export default suite;
