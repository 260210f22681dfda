// Tickets: Flickr's classic ticket server (REPLACE INTO Tickets64 + SELECT LAST_INSERT_ID() on
// MyISAM, Aria and InnoDB; on PostgreSQL the upsert on a sequence with increment 2) against sheaf's
// ticket function, as ratios to a plain AUTO_INCREMENT (bigserial) 1-row INSERT measured in the
// same rounds. Every connection runs as one of two servers does: auto_increment_increment = 2. Each
// round runs every candidate once, in an order rotated by one per round; the tables give the
// median rate, and the min / median / max of the per-round ratios to the baseline.
import { install, mysql2Executor, mysqlState, pgExecutor } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { withDatabase } from '../test/support/targets.js';
import { type BenchSuite, markdownTable, rate } from './suite.js';

const mysqlServer = process.env.SHEAF_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const pgServer = process.env.SHEAF_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const clients = 8;
const roundMs = Number(process.env.SHEAF_BENCH_ROUND_MS ?? 1_500);
const rounds = Number(process.env.SHEAF_BENCH_ROUNDS ?? 5);

/** One connection: runs a statement and returns its rows. */
interface Conn {
  run(sql: string): Promise<Record<string, unknown>[]>;
  release(): void;
}

interface Candidate {
  readonly name: string;
  /** Takes one ticket (its value, to count duplicates) or inserts one row (undefined). */
  take(conn: Conn): Promise<unknown>;
}

interface Sample {
  perSecond: number;
  errors: number;
  duplicates: number;
}

async function measure(connect: () => Promise<Conn>, candidate: Candidate): Promise<Sample> {
  const end = Date.now() + roundMs;
  const seen = new Set<string>();
  let [count, errors, duplicates] = [0, 0, 0];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const conn = await connect();
      try {
        while (Date.now() < end) {
          // InnoDB REPLACE deadlocks now and then under concurrency: the statement took nothing.
          const value = await candidate.take(conn).catch(() => {
            errors++;
            return null;
          });
          if (value === null) continue;
          count++;
          if (value === undefined) continue;
          const key = String(value);
          if (seen.has(key)) duplicates++;
          seen.add(key);
        }
      } finally {
        conn.release();
      }
    }),
  );
  return { perSecond: (count * 1000) / roundMs, errors, duplicates };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
const percent = (value: number) => `${Math.round(value * 100)} %`;

/** Rounds of every candidate in rotated order; the first candidate is the baseline. */
async function table(connect: () => Promise<Conn>, candidates: readonly Candidate[], header: string): Promise<string> {
  const samples = candidates.map(() => [] as Sample[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < candidates.length; i++) {
      const index = (i + round) % candidates.length;
      samples[index]!.push(await measure(connect, candidates[index]!));
    }
  }
  const base = samples[0]!;
  const rows = candidates.map((candidate, index) => {
    const own = samples[index]!;
    const ratios = own.map((sample, round) => sample.perSecond / (base[round]?.perSecond ?? 1));
    return [
      candidate.name,
      rate(median(own.map((s) => s.perSecond))),
      percent(median(ratios)),
      `${percent(Math.min(...ratios))} – ${percent(Math.max(...ratios))}`,
      own.reduce((sum, s) => sum + s.errors, 0),
      own.reduce((sum, s) => sum + s.duplicates, 0),
    ];
  });
  return markdownTable([header, 'per s (median)', 'vs baseline (median)', 'min – max', 'errors', 'duplicates'], rows);
}

const replace = (engine: string): Candidate => ({
  name: `Flickr REPLACE INTO + SELECT LAST_INSERT_ID(), ${engine}`,
  async take(conn) {
    await conn.run(`replace into tickets_${engine.toLowerCase()} (stub) values ('a')`);
    return (await conn.run('select last_insert_id() as id'))[0]?.id;
  },
});

async function mariadbSection(): Promise<string> {
  const name = `sheaf_bench_t_${Date.now().toString(36)}`;
  const admin = await mysql.createConnection({ uri: mysqlServer });
  await admin.query(`create database ${name}`);
  const pool = mysql.createPool({ uri: withDatabase(mysqlServer, name), connectionLimit: clients });
  pool.on('connection', (c) => {
    c.query('set session auto_increment_increment = 2, auto_increment_offset = 1');
  });
  try {
    await install(mysql2Executor(pool));
    await pool.query(`call ${mysqlState(name).stateSql}.sheaf_adopt_ticket('b', 2, 1, 0, 0)`);
    await pool.query('create table b_ai (id bigint not null auto_increment primary key, v int) engine = innodb');
    for (const engine of ['myisam', 'aria', 'innodb']) {
      await pool.query(`create table tickets_${engine} (id bigint unsigned not null auto_increment primary key,
        stub char(1) not null default '', unique key stub (stub)) engine = ${engine}`);
    }
    const [[server]] = await pool.query<mysql.RowDataPacket[]>('select version() as v');
    const connect = async (): Promise<Conn> => {
      const c = await pool.getConnection();
      return { run: async (sql) => (await c.query<mysql.RowDataPacket[]>(sql))[0], release: () => c.release() };
    };
    const candidates: Candidate[] = [
      {
        name: 'AUTO_INCREMENT 1-row INSERT (InnoDB), baseline',
        take: (c) => c.run('insert into b_ai (v) values (1)').then(() => undefined),
      },
      replace('MyISAM'),
      replace('Aria'),
      replace('InnoDB'),
      {
        name: "sheaf_next_ticket('b')",
        take: async (c) => (await c.run("select sheaf_next_ticket('b') as id"))[0]?.id,
      },
    ];
    return `### MariaDB (${server?.v})\n\n${await table(connect, candidates, 'ticket source')}`;
  } finally {
    await pool.end();
    await admin.query(`drop database if exists ${name}`);
    await admin.end();
  }
}

async function postgresSection(): Promise<string> {
  const name = `sheaf_bench_t_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: pgServer });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const pool = new pg.Pool({ connectionString: withDatabase(pgServer, name), max: clients });
  // pool.end() resolves before its clients' sockets close; the forced drop then ends them (57P01).
  pool.on('connect', (client) => client.on('error', () => undefined));
  pool.on('error', () => undefined);
  try {
    await install(pgExecutor(pool));
    await pool.query("select sheaf.adopt_ticket('b', 2, 1, 0, 0)");
    await pool.query('create table b_serial (id bigserial primary key, v int)');
    await pool.query('create sequence tickets64_seq increment by 2 start 1');
    await pool.query(`create table tickets64 (id bigint not null default nextval('tickets64_seq') primary key,
      stub char(1) not null unique)`);
    const [server] = (await pool.query<{ server_version: string }>('show server_version')).rows;
    const connect = async (): Promise<Conn> => {
      const c = await pool.connect();
      return { run: async (sql) => (await c.query(sql)).rows, release: () => c.release() };
    };
    const candidates: Candidate[] = [
      {
        name: 'bigserial 1-row INSERT, baseline',
        take: (c) => c.run('insert into b_serial (v) values (1)').then(() => undefined),
      },
      {
        name: 'classic upsert on a sequence (increment 2) returning id',
        take: async (c) =>
          (
            await c.run(
              "insert into tickets64 (stub) values ('a') on conflict (stub) do update set id = excluded.id returning id",
            )
          )[0]?.id,
      },
      {
        name: "sheaf.next_ticket('b')",
        take: async (c) => (await c.run("select sheaf.next_ticket('b') as id"))[0]?.id,
      },
    ];
    return `### PostgreSQL (${server?.server_version})\n\n${await table(connect, candidates, 'ticket source')}`;
  } finally {
    await pool.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const suite: BenchSuite = {
  name: 'tickets',
  async run() {
    const sections = [await mariadbSection(), await postgresSection()];
    return [
      `## Tickets (${clients} clients, ${rounds} rotated rounds of ${roundMs} ms, auto_increment_increment 2)`,
      '',
      sections.join('\n\n'),
    ].join('\n');
  },
};

export default suite;
