import mysql from 'mysql2/promise';
import pg from 'pg';
import { type Opened, openDatabase } from './database.js';

/** A database holding a Flickr-classic ticket table, with a pool of the application's. */
export interface ClassicServer<P> {
  /** The application's pool: on MariaDB each new connection sets the session's step and offset. */
  readonly pool: P;
  readonly url: string;
  /** The database's name, which the client's messages show. */
  readonly name: string;
  /** Runs `statement` on a connection of its own (DDL, settings). */
  admin(statement: string): Promise<void>;
  /** Blocks the ticket table from another session for `ms`, as a hung server does; resolves after. */
  freeze(table: string, ms: number): Promise<{ lockedAt: number; unlockedAt: number }>;
  close(passed: boolean): Promise<void>;
}

/** Flickr's table on MySQL/MariaDB, in `engine`. */
export const flickrTable = (table: string, engine: string) =>
  `create table ${table} (id bigint unsigned not null auto_increment, stub char(1) not null default '', ` +
  `primary key (id), unique key stub (stub)) engine=${engine}`;

/**
 * A fresh MariaDB database whose pool's connections hand out `offset + k·step` (session settings,
 * as a team sharing one server between ticket tables would set them); none set when `step` is
 * undefined (the server's default, 1).
 */
export async function mariadbClassic(step?: number, offset?: number): Promise<ClassicServer<mysql.Pool>> {
  const opened = await openDatabase('mariadb');
  const url = opened.database.url!;
  // As many connections as the tests' callers: a caller's timeout then never includes a queue.
  const pool = mysql.createPool({ uri: url, connectionLimit: 16 });
  if (step !== undefined) {
    // Queued on the new connection before anything else is: every session has the settings.
    pool.on('connection', (connection) => {
      connection.query(`set session auto_increment_increment = ${step}, auto_increment_offset = ${offset}`);
    });
  }
  return classicServer(opened, pool, {
    connect: () => mysql.createConnection({ uri: url }),
    lock: (table) => [`lock tables ${table} write`],
    unlock: 'unlock tables',
  });
}

/** A fresh PostgreSQL database; the pool is plain (the step and offset are the sequence's). */
export async function postgresClassic(): Promise<ClassicServer<pg.Pool>> {
  const opened = await openDatabase('postgres');
  const url = opened.database.url!;
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  return classicServer(opened, pool, {
    async connect() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    },
    lock: (table) => ['begin', `lock table ${table} in access exclusive mode`],
    unlock: 'commit',
  });
}

/** A connection of its own, and how a dialect locks a table on it from other sessions and lets go. */
interface Session {
  connect(): Promise<{ query(statement: string): Promise<unknown>; end(): Promise<void> }>;
  lock(table: string): string[];
  unlock: string;
}

function classicServer<P extends { end(): Promise<void> }>(
  opened: Opened,
  pool: P,
  session: Session,
): ClassicServer<P> {
  const url = opened.database.url!;
  return {
    pool,
    url,
    name: new URL(url).pathname.slice(1),
    async admin(statement) {
      const connection = await session.connect();
      await connection.query(statement);
      await connection.end();
    },
    async freeze(table, ms) {
      const connection = await session.connect();
      for (const statement of session.lock(table)) await connection.query(statement);
      const lockedAt = performance.now();
      await sleep(ms);
      const unlockedAt = performance.now();
      await connection.query(session.unlock);
      await connection.end();
      return { lockedAt, unlockedAt };
    },
    async close(passed) {
      await pool.end();
      await opened.close(passed);
    },
  };
}

/** One call of `next()`: when it started and ended (performance.now()), and its ticket. */
export interface Call {
  readonly start: number;
  readonly end: number;
  readonly id: bigint;
}

/** `callers` loops calling `next` until `during` resolves; every ticket and every error. */
export async function load(
  next: () => Promise<bigint>,
  callers: number,
  during: () => Promise<unknown>,
): Promise<{ calls: Call[]; errors: unknown[] }> {
  const calls: Call[] = [];
  const errors: unknown[] = [];
  let stop = false;
  const loops = Array.from({ length: callers }, async () => {
    while (!stop) {
      const start = performance.now();
      try {
        const id = await next();
        calls.push({ start, end: performance.now(), id });
      } catch (error) {
        errors.push(error);
        await sleep(5);
      }
    }
  });
  await during();
  stop = true;
  await Promise.all(loops);
  return { calls, errors };
}

/** Tickets handed out more than once. */
export function duplicates(calls: readonly Call[]): bigint[] {
  const seen = new Set<bigint>();
  const repeated: bigint[] = [];
  for (const { id } of calls) {
    if (seen.has(id)) repeated.push(id);
    seen.add(id);
  }
  return repeated;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
