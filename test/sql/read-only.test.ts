// sheaf's functions write (a sequence, a counter row), so a read-only transaction refuses them: on
// PostgreSQL and PGlite `set transaction read only` and default_transaction_read_only (every
// transaction of a hot standby is read-only, with the same error: SQLSTATE 25006 naming nextval()),
// on MariaDB `start transaction read only` and `set session transaction read only` (errno 1792).
// The executors and fromDatabaseError turn the refusal into READ_ONLY naming the function.
import { fromDatabaseError, install, isSheafError, type SqlExecutor, sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { beforeAll, expect, it } from 'vitest';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { describeGeneratorPaths, expectGeneratorPath } from '../support/generator-paths.js';
import { connectKnex } from '../support/knex.js';
import { queryState } from '../support/state-sql.js';

const advice = [
  'ids are made on the primary, outside read-only transactions',
  'take ids before the read-only transaction',
];

describeGeneratorPaths('next_id() in a read-only transaction', (db, target, path) => {
  const postgres = target !== 'mariadb';
  const call = (fn: 'next_id' | 'next_ids' | 'next_ticket' | 'alloc_segment') =>
    postgres
      ? {
          next_id: 'select sheaf.next_id() as id',
          next_ids: 'select sheaf.next_ids(3) as id',
          next_ticket: "select sheaf.next_ticket('orders') as id",
          alloc_segment: "select * from sheaf.alloc_segment('orders')",
        }[fn]
      : {
          next_id: 'select sheaf_next_id() as id',
          next_ids: 'call sheaf_next_ids(3)',
          next_ticket: "select sheaf_next_ticket('orders') as id",
          alloc_segment: "call sheaf_alloc_segment('orders', null)",
        }[fn];
  const named = (fn: string) => (postgres ? `sheaf.${fn}()` : `sheaf_${fn}()`);
  const readOnly = postgres ? 'begin transaction read only' : 'start transaction read only';
  const server = postgres
    ? 'cannot execute nextval() in a read-only transaction'
    : 'Cannot execute statement in a READ ONLY transaction';

  beforeAll(async () => {
    await install(db().executor, { shard: 3, ...path.install(target) });
    if (postgres) await expectGeneratorPath(db().executor, path);
    await queryState(
      db().executor,
      postgres ? "select sheaf.create_ticket('orders')" : "call {state}.sheaf_create_ticket('orders', 1, 1)",
    );
    await queryState(
      db().executor,
      postgres ? "select sheaf.create_segment('orders')" : "call {state}.sheaf_create_segment('orders', 1000, 0, '')",
    );
    await db().executor.query(
      postgres
        ? 'create table orders (id bigint primary key default sheaf.next_id(), n int)'
        : 'create table orders (id bigint not null auto_increment primary key, n int)',
    );
    if (!postgres) await db().executor.query(sheafTriggerSql('orders', 'id').create);
  });

  /** Runs `body` in a session inside a read-only transaction, rolled back afterwards. */
  const inReadOnly = (body: (session: SqlExecutor) => Promise<void>) =>
    db().executor.session(async (session) => {
      await session.query(readOnly);
      try {
        await body(session);
      } finally {
        await session.query('rollback');
      }
    });

  it('set transaction read only: next_id() rejects with READ_ONLY naming the function and what to do', async () => {
    await inReadOnly(async (session) => {
      const error = await expectSheafRejection(
        session.query(call('next_id')),
        'READ_ONLY',
        `${named('next_id')} cannot run in a read-only transaction (${server})`,
        ...advice,
        postgres ? 'on a hot standby, connect to the primary' : '(start transaction read write; check tx_read_only)',
      );
      expect(error.details).toMatchObject({
        sqlState: '25006',
        function: postgres ? 'sheaf.next_id' : 'sheaf_next_id',
      });
    });
  });

  it.each(['next_ids', 'next_ticket', 'alloc_segment'] as const)('%s names itself', async (fn) => {
    await inReadOnly(async (session) => {
      await expectSheafRejection(session.query(call(fn)), 'READ_ONLY', `${named(fn)} cannot run`, ...advice);
    });
  });

  it('a read-only default for the session (default_transaction_read_only / session transaction read only) too', async () => {
    await db().executor.session(async (session) => {
      await session.query(postgres ? 'set default_transaction_read_only = on' : 'set session transaction read only');
      try {
        await expectSheafRejection(session.query(call('next_id')), 'READ_ONLY', named('next_id'), ...advice);
      } finally {
        await session.query(postgres ? 'reset default_transaction_read_only' : 'set session transaction read write');
      }
      expect(await session.query(call('next_id'))).toHaveLength(1);
    });
  });

  it('a plain insert into a table whose key sheaf fills is refused before sheaf runs, and stays the driver error', async () => {
    await inReadOnly(async (session) => {
      const error = await session.query('insert into orders (n) values (1)').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeDefined();
      expect(isSheafError(error)).toBe(false);
      expect((error as { sqlState?: string; code?: string }).sqlState ?? (error as { code?: string }).code).toBe(
        '25006',
      );
    });
  });

  const select = postgres ? 'select sheaf.next_id()' : 'select sheaf_next_id()';

  /** The error of `select next_id()` in a read-only transaction, through a driver or knex of the test's own. */
  const ownQueryError = async (via: 'driver' | 'knex'): Promise<unknown> => {
    if (via === 'knex') {
      const k = await connectKnex(target, db().url);
      try {
        return await k
          .transaction(
            async (trx) => {
              await trx.raw(select);
            },
            { readOnly: true },
          )
          .then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
      } finally {
        await k.destroy();
      }
    }
    if (target === 'pglite') {
      const own = db().pglite!;
      await own.query(readOnly);
      try {
        return await own.query(select).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      } finally {
        await own.query('rollback');
      }
    }
    if (postgres) {
      const client = new pg.Client({ connectionString: db().url });
      await client.connect();
      await client.query(readOnly);
      const error = await client.query(select).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      await client.end();
      return error;
    }
    const connection = await mysql.createConnection({ uri: db().url! });
    await connection.query(readOnly);
    const error = await connection.query(select).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await connection.end();
    return error;
  };

  for (const via of ['driver', 'knex'] as const) {
    it.skipIf(via === 'knex' && target === 'pglite')(
      `fromDatabaseError converts the error of a query of your own (${via})`,
      async () => {
        const error = await ownQueryError(via);
        expect(isSheafError(error)).toBe(false);
        // The native path's C function leaves no trace in pg's error (no PL/pgSQL frame in `where`,
        // no statement, which knex and the MySQL drivers keep): it takes the statement.
        const bare = via === 'driver' && path.name === 'native';
        if (bare) expect(fromDatabaseError(error)).toBe(error);
        const converted = fromDatabaseError(error, bare ? select : undefined);
        expect(isSheafError(converted, 'READ_ONLY')).toBe(true);
        expect((converted as Error).message).toContain(
          `${named('next_id')} cannot run in a read-only transaction (${server}): ids`,
        );
        expect((converted as Error).cause).toBe(error);
      },
    );
  }
});
