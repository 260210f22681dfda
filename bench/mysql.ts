// MySQL/MariaDB: sheaf_next_id() against UUID()/UUID_SHORT(), tickets, and INSERTs through the sheaf
// trigger against AUTO_INCREMENT and app-assigned ids. 8 clients; every candidate runs in several
// short rounds interleaved with its baselines, and the median round counts (other load moves numbers).
import { install, mysql2Executor, sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';
import { type BenchSuite, markdownTable, rate, ratio, type TargetCheck, targetTable } from './suite.js';

const serverUrl = process.env.SHEAF_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const clients = 8;
const roundMs = Number(process.env.SHEAF_BENCH_ROUND_MS ?? 1_500);
const rounds = Number(process.env.SHEAF_BENCH_ROUNDS ?? 3);

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

/** Median per candidate over interleaved rounds. */
async function run(pool: mysql.Pool, candidates: readonly Candidate[]): Promise<Map<string, number>> {
  const samples = new Map(candidates.map((candidate) => [candidate.name, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    for (const candidate of candidates) samples.get(candidate.name)?.push(await measure(pool, candidate));
  }
  return new Map(
    [...samples].map(([name, values]) => [name, values.sort((a, b) => a - b)[values.length >> 1] as number]),
  );
}

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
      await pool.query("call sheaf_create_ticket('b', 1, 1)");
      await pool.query(
        'create table b_flickr (id bigint not null auto_increment primary key, stub char(1) not null unique) engine = aria',
      );
      for (const table of ['b_ai', 'b_sheaf']) {
        await pool.query(
          `create table ${table} (id bigint not null auto_increment primary key, v int) engine = innodb`,
        );
      }
      await pool.query('create table b_app (id bigint not null primary key, v int) engine = innodb');
      await pool.query(sheafTriggerSql('b_sheaf', 'id').create);
      const [[server]] = await pool.query<mysql.RowDataPacket[]>('select version() as v');

      const ids = await run(pool, idCandidates);
      const idRows = idCandidates.map((c) => [
        c.name,
        rate(ids.get(c.name) ?? 0),
        ratio(ids.get(c.name) ?? 0, ids.get('UUID_SHORT()') ?? 1),
      ]);
      const insertRows: unknown[][] = [];
      const checks: TargetCheck[] = [];
      for (const rows of [1, 100]) {
        const candidates = insertCandidates(rows);
        const got = await run(pool, candidates);
        const baseline = got.get(candidates[0]?.name ?? '') ?? 1;
        for (const c of candidates)
          insertRows.push([c.name, rate(got.get(c.name) ?? 0), ratio(got.get(c.name) ?? 0, baseline)]);
        for (const [prefix, share] of [
          ['sheaf trigger', 0.5],
          ['app-assigned ids', 0.95],
        ] as const) {
          const name = candidates.find((c) => c.name.startsWith(prefix))?.name ?? prefix;
          const measured = (got.get(name) ?? 0) / baseline;
          checks.push({
            target: `${name} ≥ ${share * 100} % of AUTO_INCREMENT`,
            measured: `${Math.round(measured * 100)} %`,
            met: measured >= share,
          });
        }
      }
      return [
        `## MySQL/MariaDB (${server?.v}, ${clients} clients, median of ${rounds} × ${roundMs} ms rounds)`,
        '',
        markdownTable(['ids', 'ids/s', 'vs UUID_SHORT()'], idRows),
        '',
        markdownTable(['insert', 'rows/s', 'vs AUTO_INCREMENT'], insertRows),
        '',
        targetTable(checks),
      ].join('\n');
    } finally {
      await pool.end();
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    }
  },
};

export default suite;
