// The generators the PostgreSQL suite compares and the databases they run in. Most share one
// database; a peer that needs a server extension (pgEdge's snowflake, sheaf's native path) gets a
// database of its own and runs only where the server offers the extension: elsewhere it is a
// skipped row with the reason, never a missing one.
import { type InstallOptions, install, pgExecutor, type SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { withDatabase } from '../test/support/targets.js';

export const serverUrl = process.env.SHEAF_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
// Two runs at once on a shared server must not drop each other's databases.
const runId = Date.now().toString(36);

/** The name of this run's database for `purpose`. */
export const databaseName = (purpose: string) => `sheaf_bench_${purpose}_${runId}`;

/** One generator under test. Its table is `t_<slug>`: an id column and `v integer`. */
export interface Candidate {
  readonly slug: string;
  readonly name: string;
  /** The id column of its table. */
  readonly key: string;
  /** An expression that takes one id, for the per-call measurement; absent when there is none (identity). */
  readonly call?: string;
  /** Present for a peer that needs a server extension and runs in a database of its own. */
  readonly peer?: Peer;
}

export interface Peer {
  /** The extension it needs: offered by the server, and created in the peer's database once prepared. */
  readonly extension: string;
  /** sheaf's install() options in the peer's database; absent: sheaf is not installed there. */
  readonly install?: InstallOptions;
  /** Statements run after install() to create and configure a third-party extension. */
  readonly setup?: (database: string) => readonly string[];
}

const sheafKey = 'id bigint primary key default sheaf.next_id()';

/** bigserial first: it is the baseline every ratio divides by, and its call is plain `nextval()`. */
export const candidates: readonly Candidate[] = [
  { slug: 'bigserial', name: 'bigserial', key: 'id bigserial primary key', call: "nextval('seq')" },
  { slug: 'identity', name: 'identity', key: 'id bigint generated always as identity primary key' },
  {
    slug: 'uuid',
    name: 'gen_random_uuid()',
    key: 'id uuid primary key default gen_random_uuid()',
    call: 'gen_random_uuid()',
  },
  {
    slug: 'instagram',
    name: "Instagram's next_id() (2011)",
    key: 'id bigint primary key default instagram.next_id()',
    call: 'instagram.next_id()',
  },
  { slug: 'sheaf', name: 'sheaf.next_id() (PL/pgSQL)', key: sheafKey, call: 'sheaf.next_id()' },
  {
    slug: 'pgedge',
    name: "pgEdge's snowflake.nextval()",
    key: 'id bigint primary key default snowflake.nextval()',
    call: 'snowflake.nextval()',
    // A database-level node id: pgbench's sessions pick it up when they connect.
    peer: {
      extension: 'snowflake',
      setup: (database) => ['create extension snowflake', `alter database ${database} set snowflake.node = 1`],
    },
  },
  {
    slug: 'native',
    name: 'sheaf.next_id() native',
    key: sheafKey,
    call: 'sheaf.next_id()',
    peer: { extension: 'sheaf_native', install: { shard: 5, native: true } },
  },
];

// Instagram's function as published in 2011 (shard 5), with its clock as a parameter so the
// duplicate scenarios can freeze or step it.
export const instagramSql = (clock: string) => `
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
export const realClock = 'floor(extract(epoch from clock_timestamp()) * 1000)';
export const testClock = "nullif(current_setting('sheaf.clock_ms', true), '')::bigint";

/** A scratch database on the bench server, dropped by close(). */
export interface BenchDatabase {
  readonly url: string;
  readonly sql: SqlExecutor;
  close(): Promise<void>;
}

async function onServer<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Creates database `name` and runs `prepare` in it; the returned connection is a new session, so it
 * sees the database-level settings `prepare` made, as pgbench's sessions will.
 */
export async function createDatabase(
  name: string,
  prepare: (sql: SqlExecutor) => Promise<void>,
): Promise<BenchDatabase> {
  await onServer(async (admin) => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  });
  const url = withDatabase(serverUrl, name);
  const close = async () => {
    await onServer((admin) => admin.query(`drop database if exists ${name} with (force)`));
  };
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // The forced drop ends a session still open (57P01): expected, not a crash.
    client.on('error', () => undefined);
    return client;
  };
  try {
    const setup = await connect();
    await prepare(pgExecutor(setup)).finally(() => setup.end());
    const client = await connect();
    return {
      url,
      sql: pgExecutor(client),
      async close() {
        await client.end();
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The shared database: sheaf (shard 5), Instagram's function and its sequence, and `seq`. */
export function createSharedDatabase(name: string, testClockInstall: boolean): Promise<BenchDatabase> {
  return createDatabase(name, async (sql) => {
    await install(sql, { shard: 5, testClock: testClockInstall, native: false });
    await sql.query('create schema instagram');
    await sql.query('create sequence instagram.table_id_seq');
    await sql.query('create sequence seq');
    await sql.query(instagramSql(testClockInstall ? testClock : realClock));
  });
}

/** A peer's own database, or why the peer cannot run on this server. */
export async function preparePeer(
  candidate: Candidate & { peer: Peer },
): Promise<{ db: BenchDatabase } | { skipped: string }> {
  const { extension, install: options, setup } = candidate.peer;
  const offered = await onServer(
    async (admin) =>
      (await admin.query('select 1 from pg_available_extensions where name = $1', [extension])).rowCount !== 0,
  );
  if (!offered) return { skipped: `extension ${extension} not available` };
  const name = databaseName(candidate.slug);
  let db: BenchDatabase;
  try {
    db = await createDatabase(name, async (sql) => {
      if (options) await install(sql, options);
      for (const statement of setup?.(name) ?? []) await sql.query(statement);
    });
  } catch (error) {
    return { skipped: `setting up extension ${extension} failed: ${(error as Error).message}` };
  }
  const why = await problem(db.sql, candidate.peer, candidate.call);
  if (why === undefined) return { db };
  await db.close();
  return { skipped: why };
}

/** What keeps a prepared peer from being measured as itself, if anything. */
async function problem(sql: SqlExecutor, peer: Peer, call: string | undefined): Promise<string | undefined> {
  // Without this, a sheaf install that did not take the native path would be measured under its name.
  const created = await sql.query('select 1 from pg_extension where extname = $1', [peer.extension]);
  if (created.length === 0) {
    const by = peer.install ? `install(executor, ${JSON.stringify(peer.install)})` : 'its setup';
    return `extension ${peer.extension} is available, but ${by} did not create it in its database`;
  }
  if (!call) return undefined;
  // An extension that must be preloaded (shared_preload_libraries) fails here, not in pgbench.
  return sql.query(`select ${call}`).then(
    () => undefined,
    (error: Error) => `${call} failed: ${error.message}`,
  );
}
