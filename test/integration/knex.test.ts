import { decodeId } from '@sheaf/core';
import { extendKnex, insertWithIds, installSheaf, knexExecutor } from '@sheaf/knex';
import knex, { type Knex } from 'knex';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main } from '../../docs/guides/examples/knex/app.js';
import { migrationSource } from '../../docs/guides/examples/knex/migrations.js';
import { describeTargets } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { connectKnex } from '../support/knex.js';

it('importing @sheaf/knex patches nothing: insertWithIds exists on builders only after extendKnex()', () => {
  const offline = knex({ client: 'pg' });
  expect((offline('orders') as unknown as Record<string, unknown>).insertWithIds).toBeUndefined();
});

it('extendKnex() refuses what is neither a knex instance nor the knex module, saying what to pass', () => {
  const cases: [unknown, string][] = [
    [{ client: 'pg', connection: 'postgres://app@db/app' }, 'an object with keys client, connection'],
    [{ default: knex }, 'an object with keys default'],
    [undefined, 'undefined'],
    [null, 'null'],
    [function query() {}, 'a function named query'],
  ];
  for (const [value, shown] of cases) {
    expectSheafError(
      () => extendKnex(value as never),
      'INVALID_ARGUMENT',
      "extendKnex() takes the knex instance you query with (const knex = Knex({ client: 'pg', connection }))",
      "or the knex module (import Knex from 'knex')",
      `not ${shown}`,
    );
  }
  const offline = knex({ client: 'pg' });
  expect((offline('orders') as unknown as Record<string, unknown>).insertWithIds).toBeUndefined();
});

describeTargets('knex', (db, target) => {
  let k: Knex;
  beforeAll(async () => {
    k = await connectKnex(target, db().url);
  });
  afterAll(async () => {
    await k?.destroy();
  });

  it('runs the guide example: migrations up, insertWithIds in a transaction, ids read back and decoded', async () => {
    const result = await main(k);
    expect(result.shardId).toBe(4);
    expect(Math.abs(result.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(result.items.map((item) => item.sku)).toEqual(['tea', 'scone']);
    expect(decodeId(result.guestOrderId).shardId).toBe(4);
    expect([result.orderId, ...result.items.map((item) => item.id)]).not.toContain(result.guestOrderId);
    for (const item of result.items) {
      expect(item.orderId).toBe(result.orderId);
      expect(decodeId(item.id).shardId).toBe(4);
      expect(item.id > result.orderId).toBe(true);
    }
  });

  it('sheafId: the database assigns the key to a plain insert (PostgreSQL default, MySQL trigger + AUTO_INCREMENT)', async () => {
    const insert = k('orders').insert({ customer: 'plain' });
    const inserted = await (target === 'mariadb' ? insert : insert.returning('id'));
    const [row] = await k('orders').where({ customer: 'plain' });
    expect(decodeId(row.id).shardId).toBe(4);
    // MySQL: a single-row insert's insertId is the trigger's id (AUTO_INCREMENT column).
    const first = inserted[0] as { id?: unknown } | string;
    expect(String(typeof first === 'object' ? first.id : first)).toBe(String(row.id));
    if (target === 'mariadb') {
      // The trigger calls sheaf's own function in sheaf_<database> (the connection config names it),
      // never the forward an owner of the database could replace.
      const [trigger] = await k.raw(
        `select action_statement as body, database() as db from information_schema.triggers
         where trigger_schema = database() and event_object_table = 'orders'`,
      );
      const { body, db: name } = (trigger as { body: string; db: string }[])[0]!;
      expect(body).toContain(`\`sheaf_${name}\`.sheaf_next_id()`);
    }
  });

  it('insertWithIds keeps given ids, takes the rest from an id source when one is given, and returns them in row order', async () => {
    let next = 10_000n;
    const given = 9_000n;
    const ids = await insertWithIds(k, 'orders', [{ customer: 'a' }, { id: given, customer: 'b' }, { customer: 'c' }], {
      ids: { next: () => next++ },
    });
    expect(ids).toEqual([10_000n, given, 10_001n]);
    const rows = await k('orders').whereIn('id', ids.map(String)).orderBy('id');
    expect(rows.map((row: { customer: string }) => row.customer)).toEqual(['b', 'a', 'c']);
    expect(await insertWithIds(k, 'orders', [])).toEqual([]);
  });

  it('extendKnex() takes the instance or the module, is idempotent (a second copy of the package too), and the builder method works in transactions', async () => {
    extendKnex(k);
    extendKnex(k);
    extendKnex(knex);
    await k.transaction(async (trx) => extendKnex(trx));
    const method = (k('orders') as unknown as Record<string, unknown>).insertWithIds;
    vi.resetModules();
    const copy = (await import('@sheaf/knex')) as typeof import('@sheaf/knex');
    expect(copy.extendKnex).not.toBe(extendKnex);
    copy.extendKnex(k);
    copy.extendKnex(knex);
    expect((k('orders') as unknown as Record<string, unknown>).insertWithIds).toBe(method);
    const ids = await k.transaction((trx) => trx('orders').insertWithIds([{ customer: 'x' }, { customer: 'y' }]));
    expect(ids).toHaveLength(2);
    expect(ids[1]! > ids[0]!).toBe(true);
    for (const id of ids) expect(decodeId(id).shardId).toBe(4);
  });

  it('knexExecutor serves @sheaf/core: one pinned connection per session', async () => {
    const executor = knexExecutor(k);
    const sql =
      executor.dialect.name === 'postgres'
        ? 'select sheaf.next_id()::text as id, $1::text as echo, pg_backend_pid() as conn'
        : 'select sheaf_next_id() as id, ? as echo, connection_id() as conn';
    const [a, b] = await executor.session(async (session) => [
      (await session.query<{ id: string; echo: string; conn: unknown }>(sql, ['x?']))[0]!,
      (await session.query<{ conn: unknown }>(sql, ['y']))[0]!,
    ]);
    expect(a.echo).toBe('x?');
    expect(a.conn).toBe(b.conn);
    expect(decodeId(a.id).shardId).toBe(4);
  });

  it.skipIf(target === 'mariadb')(
    'installSheaf inside a transaction is a savepoint of it: rolled back with it (PostgreSQL: transactional DDL)',
    async () => {
      await k.migrate.rollback({ migrationSource }, true);
      await expect(
        k.transaction(async (trx) => {
          await installSheaf(trx);
          throw new Error('migration failed');
        }),
      ).rejects.toThrow('migration failed');
      const [probe] = (await k.raw("select to_regnamespace('sheaf') is not null as installed")).rows;
      expect(probe.installed).toBe(false);
    },
  );

  it.skipIf(target === 'mariadb')(
    'knexExecutor maps a wrong-type argument of a sheaf function to INVALID_ARGUMENT (PostgreSQL SQLSTATEs)',
    async () => {
      await k.migrate.latest({ migrationSource });
      const executor = knexExecutor(k);
      await expectSheafRejection(executor.query('select sheaf.next_id($1) as id', ['x']), 'INVALID_ARGUMENT');
      await expectSheafRejection(executor.query('select sheaf.next_ids(1.5) as id'), 'INVALID_ARGUMENT');
    },
  );

  it('migrations down: tables dropped, sheaf uninstalled', async () => {
    await k.migrate.latest({ migrationSource });
    await k.migrate.rollback({ migrationSource }, true);
    expect(await k.schema.hasTable('orders')).toBe(false);
    const executor = knexExecutor(k);
    const probe =
      executor.dialect.name === 'postgres'
        ? "select count(*)::int as n from pg_namespace where nspname = 'sheaf'"
        : "select count(*) as n from information_schema.routines where routine_schema = database() and routine_name = 'sheaf_next_id'";
    const [row] = await executor.query<{ n: unknown }>(probe);
    expect(Number(row!.n)).toBe(0);
  });

  it.runIf(target === 'mariadb')(
    'refuses ids that mysql2 rounded (a connection without bigNumberStrings)',
    async () => {
      const lossy = knex({ client: 'mysql2', connection: db().url });
      try {
        await lossy.migrate.latest({ migrationSource });
        await expectSheafRejection(
          insertWithIds(lossy, 'orders', { customer: 'z' }, { ids: { next: () => 2n ** 60n + 1n } }).then(async () => {
            const [row] = await lossy('orders').where({ customer: 'z' });
            return insertWithIds(lossy, 'orders', { id: row.id, customer: 'dup' });
          }),
          'INVALID_ID',
          // The rule for explicit ids, worded alike on every dialect (docs/errors.md, Explicit ids).
          'is not a safe integer: a number above 2^53 − 1 may already be rounded',
        );
        expect(await lossy('orders').where({ customer: 'dup' })).toEqual([]);
      } finally {
        await lossy.migrate.rollback({ migrationSource }, true);
        await lossy.destroy();
      }
    },
  );
});
