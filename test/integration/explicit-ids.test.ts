// One rule for explicit ids (docs/errors.md, Explicit ids), checked the same way on every path:
// core, Prisma, Knex and Drizzle on each dialect, and the raw MySQL/MariaDB trigger.
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  checkExplicitId,
  decodeId,
  encodeId,
  install,
  isSheafError,
  parseId,
  presets,
  SnowflakeGenerator,
  type SqlExecutor,
  sheafTriggerSql,
} from '@sheaf/core';
import { sheafId as mysqlSheafId } from '@sheaf/drizzle/mysql-core';
import { sheafId as pgSheafId } from '@sheaf/drizzle/pg-core';
import { extendKnex, insertWithIds, installSheaf, knexExecutor, sheafId as knexSheafId } from '@sheaf/knex';
import { sheaf } from '@sheaf/prisma';
import { int, mysqlTable } from 'drizzle-orm/mysql-core';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import { drizzle as pgliteDrizzle } from 'drizzle-orm/pglite';
import knex, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlMigration, postgresMigration } from '../../docs/guides/examples/prisma/migration.js';
import { PrismaClient as MysqlClient } from '../.generated/prisma/mysql/client.js';
import { sheafModels as mysqlModels } from '../.generated/prisma/mysql/sheaf/models.js';
import { PrismaClient as PgClient } from '../.generated/prisma/postgres/client.js';
import { sheafModels as pgModels } from '../.generated/prisma/postgres/sheaf/models.js';
import { describeTargets } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { layout, validIds, wrongIds } from '../support/explicit-id-cases.js';
import { connectKnex } from '../support/knex.js';
import { queryState } from '../support/state-sql.js';

/** One way to insert a row with an explicit id, and where the row lands (to read its id back). */
interface Path {
  readonly name: string;
  insert(id: unknown, marker: number): Promise<unknown>;
  readonly table: string;
  readonly column: string;
  readonly mark: (marker: number) => string | number;
  /** A named gap: this path cannot run on this target. */
  readonly skip?: string;
  /** The raw trigger: values it cannot judge as the adapters do. */
  readonly raw?: true;
  /** Where the row is read back, when not in the target's database (knex-pglite has its own). */
  readonly executor?: () => SqlExecutor;
}

type Model = Record<string, (args: unknown) => Promise<unknown>>;
type LooseClient = Record<string, Model> & { $disconnect(): Promise<void> };

/** Refused inserts carry markers from here on: none of them may reach a table. */
const refusedFrom = 100_000;
let nextMarker = 0;
const marker = (refused: boolean) => (refused ? refusedFrom : 0) + ++nextMarker;
/** Anything that throws while a query is built (drizzle maps values in then()) becomes a rejection. */
const attempt = (fn: () => PromiseLike<unknown>) => Promise.resolve().then(fn);

describe('explicit ids: core checkExplicitId', () => {
  it.each(wrongIds.map((c) => [c.what, c] as const))('refuses %s', (_what, c) => {
    expectSheafError(() => checkExplicitId(c.value, layout), c.code, ...c.shows);
  });

  it('accepts bigints, safe integers and decimal strings from 1 to the layout maximum, as bigints', () => {
    for (const { value, expected } of validIds()) expect(checkExplicitId(value, layout)).toBe(BigInt(expected));
    expect(checkExplicitId(1)).toBe(1n);
    expect(checkExplicitId(presets.sheaf.maxId)).toBe(presets.sheaf.maxId);
    expectSheafError(() => checkExplicitId(presets.sheaf.maxId + 1n), 'ID_OUT_OF_RANGE', '(1 to 9223372036854775807)');
    expectSheafError(() => checkExplicitId(0), 'ID_OUT_OF_RANGE', 'leave the id out');
    // Reading ids (parseId) still takes 0: only an id given to an insert starts at 1.
    expect(parseId(0)).toBe(0n);
  });
});

describeTargets('explicit ids', (db, target) => {
  const mysqlTarget = target === 'mariadb';
  const q = (name: string) => db().executor.dialect.quoteIdent(name);
  let prisma: LooseClient;
  let base: LooseClient;
  let customerId: bigint;
  let k: Knex;
  let pool: pg.Pool | mysql.Pool | undefined;
  let orm: { insert(table: unknown): { values(row: unknown): PromiseLike<unknown> } };
  const pgIds = pgTable('drizzle_ids', { id: pgSheafId({ layout: 'js53' }).primaryKey(), n: integer('n') });
  let sequence = 0;
  const appId = () => encodeId({ time: Date.now(), shardId: 7, sequence: sequence++ % 256 }, layout);
  const myIds = mysqlTable('drizzle_ids', {
    id: mysqlSheafId({ ids: appId, layout: 'js53' }).primaryKey(),
    n: int('n'),
  });

  beforeAll(async () => {
    const executor = db().executor;
    await install(executor, { shard: 1, layout: 'js53' });
    const trigger = (table: string) => sheafTriggerSql(table, 'id', { layout: 'js53' }).create;
    const prismaTables = mysqlTarget
      ? [
          ...mysqlMigration.filter((sql) => !sql.startsWith('create trigger')),
          ...['Customer', 'orders', 'order_items'].map(trigger),
        ]
      : postgresMigration;
    const own = mysqlTarget
      ? [
          'create table drizzle_ids (id bigint not null primary key, n int)',
          trigger('drizzle_ids'),
          'create table raw_ids (id bigint not null auto_increment primary key, n int)',
          trigger('raw_ids'),
        ]
      : ['create table drizzle_ids (id bigint primary key default sheaf.next_id(), n int)'];
    for (const statement of [...prismaTables, ...own]) await executor.query(statement);

    const adapter =
      target === 'postgres'
        ? new PrismaPg({ connectionString: db().url! })
        : target === 'pglite'
          ? new PrismaPGlite(db().pglite!)
          : new PrismaMariaDb(db().url!.replace(/^mysql:/, 'mariadb:'));
    base = (mysqlTarget ? new MysqlClient({ adapter }) : new PgClient({ adapter })) as unknown as LooseClient;
    const generator = { next: appId };
    const extension = sheaf({
      schema: mysqlTarget ? mysqlModels : pgModels,
      layout: 'js53',
      models: {
        Customer: { strategy: 'db' },
        Order: { strategy: 'snowflake', generator },
        OrderItem: { strategy: 'snowflake', generator },
      },
    });
    prisma = (base as unknown as PgClient).$extends(extension) as unknown as LooseClient;
    customerId = BigInt(
      ((await prisma.customer!.create!({ data: { email: 'owner@example.com' } })) as { id: bigint }).id,
    );

    extendKnex(knex);
    k = await connectKnex(target, db().url);
    await installSheaf(k, { shard: 1, layout: 'js53' });
    await k.schema.createTable('knex_ids', (table) => {
      knexSheafId(table, 'id', { layout: 'js53' });
      table.integer('n');
    });

    if (target === 'pglite') orm = pgliteDrizzle(db().pglite!) as never;
    else if (target === 'postgres') {
      const pgPool = new pg.Pool({ connectionString: db().url });
      pool = pgPool;
      orm = pgDrizzle(pgPool) as never;
    } else {
      const mysqlPool = mysql.createPool({ uri: db().url!, supportBigNumbers: true, bigNumberStrings: true });
      pool = mysqlPool;
      orm = mysqlDrizzle(mysqlPool) as never;
    }
  });
  afterAll(async () => {
    await base?.$disconnect();
    await k?.destroy();
    await pool?.end();
  });

  const order = (id: unknown, total: number) => ({ id, customerId, total });
  const email = (n: number) => `m${n}@example.com`;
  const sku = (n: number) => `sku-${n}`;
  const absent = () => encodeId({ time: Date.now(), shardId: 15, sequence: sequence++ % 256 }, layout);
  const paths: Path[] = [
    {
      name: 'Prisma create, db model',
      insert: (id, n) => prisma.customer!.create!({ data: { id, email: email(n) } }),
      table: 'Customer',
      column: 'email',
      mark: email,
    },
    {
      name: 'Prisma create, app model',
      insert: (id, n) => prisma.order!.create!({ data: order(id, n) }),
      table: 'orders',
      column: 'total',
      mark: (n) => n,
    },
    {
      name: 'Prisma createMany',
      insert: (id, n) => prisma.order!.createMany!({ data: [order(id, n)] }),
      table: 'orders',
      column: 'total',
      mark: (n) => n,
    },
    {
      name: 'Prisma createManyAndReturn',
      insert: (id, n) => prisma.order!.createManyAndReturn!({ data: [order(id, n)] }),
      table: 'orders',
      column: 'total',
      mark: (n) => n,
      ...(mysqlTarget ? { skip: 'Prisma has no createManyAndReturn for MySQL' } : {}),
    },
    {
      name: 'Prisma upsert',
      insert: (id, n) => prisma.order!.upsert!({ where: { id: absent() }, create: order(id, n), update: {} }),
      table: 'orders',
      column: 'total',
      mark: (n) => n,
    },
    {
      name: 'Prisma nested create',
      insert: (id, n) =>
        prisma.order!.create!({ data: { ...order(undefined, n), items: { create: { id, sku: sku(n) } } } }),
      table: 'order_items',
      column: 'sku',
      mark: sku,
    },
    {
      name: `Knex insertWithIds (${mysqlTarget ? 'mysql2' : target === 'pglite' ? 'knex-pglite' : 'pg'})`,
      insert: (id, n) => insertWithIds(k, 'knex_ids', { id, n }, { layout: 'js53' }),
      executor: () => knexExecutor(k),
      table: 'knex_ids',
      column: 'n',
      mark: (n) => n,
    },
    {
      name: 'Knex builder insertWithIds (extendKnex)',
      insert: (id, n) => k('knex_ids').insertWithIds({ id, n }, { layout: 'js53' }),
      executor: () => knexExecutor(k),
      table: 'knex_ids',
      column: 'n',
      mark: (n) => n,
    },
    {
      name: `Drizzle ${mysqlTarget ? 'mysql-core' : 'pg-core'}`,
      insert: (id, n) => attempt(() => orm.insert(mysqlTarget ? myIds : pgIds).values({ id, n })),
      table: 'drizzle_ids',
      column: 'n',
      mark: (n) => n,
    },
    ...(mysqlTarget
      ? [
          {
            name: 'raw insert through the MariaDB trigger',
            insert: (id: unknown, n: number) =>
              db().executor.query('insert into raw_ids (id, n) values (?, ?)', [id, n]),
            table: 'raw_ids',
            column: 'n',
            mark: (n: number) => n,
            raw: true as const,
          },
        ]
      : []),
  ];

  /** The id stored in the row marked `n`, as decimal text; undefined when no row has it. */
  async function stored(path: Path, n: number): Promise<string | undefined> {
    const asText = mysqlTarget ? 'cast(id as char)' : 'id::text';
    const executor = path.executor?.() ?? db().executor;
    const p = executor.dialect.placeholder(1);
    const rows = await executor.query<{ id: string }>(
      `select ${asText} as id from ${q(path.table)} where ${q(path.column)} = ${p}`,
      [path.mark(n)],
    );
    return rows[0]?.id;
  }

  for (const path of paths) {
    describe(path.name, () => {
      for (const c of wrongIds) {
        const gap = path.skip ?? (path.raw ? c.trigger?.reason : undefined);
        it.skipIf(gap !== undefined)(`refuses ${c.what} with ${c.code}${gap ? ` (${gap})` : ''}`, async () => {
          const n = marker(true);
          await expectSheafRejection(path.insert(c.value, n), c.code, ...c.shows);
          expect(await stored(path, n)).toBeUndefined();
        });
      }

      it.skipIf(path.skip !== undefined)(
        'stores a valid explicit id exactly, given as bigint, number or string',
        async () => {
          for (const { value, expected } of validIds()) {
            const n = marker(false);
            await path.insert(value, n);
            expect(await stored(path, n)).toBe(expected);
          }
        },
      );
    });
  }

  // The trigger exists on MySQL/MariaDB only: on PostgreSQL a column default never sees explicit ids.
  const raw = paths.find((path) => path.raw);
  if (raw) {
    describe('raw trigger: what the server decides before the trigger (documented gaps)', () => {
      for (const c of wrongIds.filter((c) => c.trigger?.instead !== undefined)) {
        const instead = c.trigger!.instead!;
        it(`${c.what}: ${JSON.stringify(instead)}`, async () => {
          const n = marker(false);
          const outcome = await raw.insert(c.value, n).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (instead === 'server error') {
            expect(isSheafError(outcome)).toBe(false);
            expect((outcome as { errno?: number }).errno).toBe(1366);
          } else if ('code' in instead) {
            expect(isSheafError(outcome, instead.code)).toBe(true);
          } else {
            expect(outcome).toBeUndefined();
            const id = await stored(raw, n);
            if (instead.stored === 'assigned') expect(decodeId(id!, layout).shardId).toBe(1);
            else expect(id).toBe(instead.stored);
          }
        });
      }
    });
  }

  it('install refuses a shard that is not an integer in range, before the database sees it', async () => {
    await expectSheafRejection(install(db().executor, { shard: 1.5 }), 'SHARD_OUT_OF_RANGE', 'shard 1.5 is not');
    await expectSheafRejection(
      install(db().executor, { shard: 16, layout: 'js53' }),
      'SHARD_OUT_OF_RANGE',
      'shard 16 does not fit 4 shard bits (max 15)',
    );
    await expectSheafRejection(
      SnowflakeGenerator.start(db().executor, { layout: 'js53', workerId: 1.5 }),
      'SHARD_OUT_OF_RANGE',
      'shard 1.5 is not an integer (4 shard bits, max 15)',
    );
    const [row] = await queryState<{ shard: unknown }>(
      db().executor,
      mysqlTarget
        ? 'select shard_id as shard from {state}.sheaf_settings'
        : 'select shard_id as shard from sheaf.settings',
    );
    expect(Number(row?.shard)).toBe(1);
  });
});
