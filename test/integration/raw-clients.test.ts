import {
  BatchedDbIds,
  decodeId,
  executorOf,
  install,
  SegmentGenerator,
  SnowflakeGenerator,
  TicketClient,
  uninstall,
} from '@sheaf/core';
import mariadb from 'mariadb';
import mysqlCallbacks from 'mysql2';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../support/database.js';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { freshPglite } from '../support/pglite-template.js';
import { selectedTargets, type TargetName } from '../support/targets.js';

/** A raw client of a driver, as an application has it, and how to end it. */
interface RawClient {
  readonly label: string;
  readonly target: TargetName;
  open(url: string | undefined): Promise<{ client: unknown; end(): Promise<void> }>;
}

const clients: RawClient[] = [
  {
    label: 'a pg Pool',
    target: 'postgres',
    async open(url) {
      const pool = new pg.Pool({ connectionString: url });
      return { client: pool, end: () => pool.end() };
    },
  },
  {
    label: 'a connected pg Client',
    target: 'postgres',
    async open(url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return { client, end: () => client.end() };
    },
  },
  {
    label: 'a mysql2/promise pool',
    target: 'mariadb',
    async open(url) {
      const pool = mysql.createPool({ uri: url });
      return { client: pool, end: () => pool.end() };
    },
  },
  {
    label: 'a mysql2 callback-API pool',
    target: 'mariadb',
    async open(url) {
      const pool = mysqlCallbacks.createPool({ uri: url });
      return { client: pool, end: () => new Promise<void>((resolve) => pool.end(() => resolve())) };
    },
  },
  {
    label: 'a mysql2/promise connection',
    target: 'mariadb',
    async open(url) {
      const connection = await mysql.createConnection({ uri: url });
      return { client: connection, end: () => connection.end() };
    },
  },
  {
    label: 'a mariadb pool',
    target: 'mariadb',
    async open(url) {
      const pool = mariadb.createPool(url!.replace(/^mysql:/, 'mariadb:'));
      return { client: pool, end: () => pool.end() };
    },
  },
  {
    label: 'a PGlite instance',
    target: 'pglite',
    async open() {
      const db = await freshPglite();
      return { client: db, end: () => db.close() };
    },
  },
];

const selected = selectedTargets();

describe('raw driver clients where sheaf takes a database', () => {
  for (const raw of clients) {
    const run = selected.includes(raw.target) ? it : it.skip;
    run(`install, generators and uninstall take ${raw.label}`, async () => {
      const database = raw.target === 'pglite' ? undefined : await openDatabase(raw.target);
      const { client, end } = await raw.open(database?.database.url);
      try {
        await install(client as never, { shard: 3 });
        expect(executorOf(client, 'test')).toBe(executorOf(client, 'test'));
        const snowflake = await SnowflakeGenerator.start(client as never);
        try {
          expect(snowflake.workerId).not.toBe(3);
          expect(decodeId(snowflake.next()).shardId).toBe(snowflake.workerId);
        } finally {
          await snowflake.close();
        }
        const batched = new BatchedDbIds(client as never, { batchSize: 10 });
        try {
          expect(decodeId(await batched.next()).shardId).toBe(3);
        } finally {
          await batched.close();
        }
        await uninstall(client as never, { force: true });
      } finally {
        await end();
        await database?.close(true);
      }
    });
  }

  it('refuses what is no database, saying what to pass', () => {
    for (const value of [undefined, 'postgres://localhost/app', {}, { query: 1 }]) {
      expectSheafError(
        () => new SegmentGenerator(value as never, { bizTag: 'orders' }),
        'INVALID_ARGUMENT',
        'SegmentGenerator needs a database: a pg Pool or Client, a mysql2 or mariadb pool or connection, a PGlite instance',
      );
    }
    expectSheafError(
      () => new TicketClient([{}] as never, { name: 'orders' }),
      'INVALID_ARGUMENT',
      'TicketClient needs a database',
    );
  });
});
