import { decodeId, install, isSheafError, SnowflakeGenerator } from '@sheaf/core';
import { createdBetween, withDecodedIds } from '@sheaf/drizzle';
import { sheafId as mysqlSheafId } from '@sheaf/drizzle/mysql-core';
import { sheafId, sheafRef } from '@sheaf/drizzle/pg-core';
import { eq } from 'drizzle-orm';
import { int, mysqlTable } from 'drizzle-orm/mysql-core';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { migrate as mysqlMigrate } from 'drizzle-orm/mysql2/migrator';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { pgTable } from 'drizzle-orm/pg-core';
import { drizzle as pgliteDrizzle } from 'drizzle-orm/pglite';
import { migrate as pgliteMigrate } from 'drizzle-orm/pglite/migrator';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useIds } from '../../docs/guides/examples/drizzle/ids.js';
import * as mysqlExample from '../../docs/guides/examples/drizzle/mysql.js';
import * as pgExample from '../../docs/guides/examples/drizzle/pg.js';
import * as mysqlSchema from '../../docs/guides/examples/drizzle/schema-mysql.js';
import * as pgSchema from '../../docs/guides/examples/drizzle/schema-pg.js';
import { triggerStatements } from '../../docs/guides/examples/drizzle/triggers.js';
import { describeTargets } from '../support/database.js';
import { drizzleKitGenerate, type Generated } from '../support/drizzle-kit.js';
import { expectSheafError } from '../support/expect-sheaf-error.js';
import { nextIds } from '../support/mysql-calls.js';

const modes = pgTable('modes', {
  id: sheafId().primaryKey(),
  asString: sheafRef('as_string', { mode: 'string' }),
  asNumber: sheafRef('as_number', { mode: 'number', layout: 'js53' }),
});

// drizzle-kit runs once for both PostgreSQL targets.
let pgGenerated: Promise<Generated> | undefined;

describeTargets(
  'drizzle on PostgreSQL',
  (db, target) => {
    let generated: Generated;
    let orm: ReturnType<typeof pgliteDrizzle<typeof pgSchema>> | ReturnType<typeof pgDrizzle<typeof pgSchema>>;
    let pool: pg.Pool | undefined;

    beforeAll(async () => {
      pgGenerated ??= drizzleKitGenerate('postgresql', 'schema-pg.ts');
      generated = await pgGenerated;
      if (target === 'pglite') {
        orm = pgliteDrizzle(db().pglite!, { schema: pgSchema });
      } else {
        pool = new pg.Pool({ connectionString: db().url });
        orm = pgDrizzle(pool, { schema: pgSchema });
      }
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('drizzle-kit emits DEFAULT sheaf.next_id() for sheafId() columns', () => {
      expect(generated.sql.join('\n')).toContain('"id" bigint PRIMARY KEY DEFAULT sheaf.next_id() NOT NULL');
    });

    it('runs the guide example: install, drizzle-kit migration, insert … returning, relations, decode', async () => {
      const result =
        target === 'pglite'
          ? await (async () => {
              await install(db().executor, { shard: 1 });
              await pgliteMigrate(orm as ReturnType<typeof pgliteDrizzle>, { migrationsFolder: generated.folder });
              return pgExample.placeOrder(orm);
            })()
          : await pgExample.main(db().url!, generated.folder);
      expect(result.shardId).toBe(1);
      expect(Math.abs(result.timestamp.getTime() - Date.now())).toBeLessThan(60_000);
      const order = result.order!;
      expect(typeof order.id).toBe('bigint');
      expect(order.items.map((item) => item.sku).sort()).toEqual(['scone', 'tea']);
      for (const item of order.items) {
        expect(typeof item.id).toBe('string');
        expect(item.orderId).toBe(order.id);
        expect(decodeId(item.id).shardId).toBe(1);
        expect(BigInt(item.id) > order.id).toBe(true);
      }
    });

    it('reads and writes exact ids in bigint, string and number (js53) modes; selects by creation time', async () => {
      await db().executor.query(
        'create table modes (id bigint primary key default sheaf.next_id(), as_string bigint, as_number bigint)',
      );
      const big = 9_223_372_036_854_775_000n;
      const [row] = await orm
        .insert(modes)
        .values({ asString: big.toString(), asNumber: Number.MAX_SAFE_INTEGER })
        .returning();
      expect(row).toMatchObject({ asString: big.toString(), asNumber: Number.MAX_SAFE_INTEGER });
      const [found] = await orm.select().from(modes).where(eq(modes.asString, big.toString()));
      expect(found?.id).toBe(row!.id);
      const recent = await orm
        .select()
        .from(modes)
        .where(createdBetween(modes.id, Date.now() - 60_000, Date.now() + 1000));
      expect(withDecodedIds(recent)[0]?.idDecoded.shardId).toBe(1);
      const none = await orm
        .select()
        .from(modes)
        .where(createdBetween(modes.id, Date.now() + 60_000, Date.now() + 120_000));
      expect(none).toEqual([]);
    });

    it('relational queries nest rows as JSON, which rounds int8: a nested sheaf id is refused, never rounded', async () => {
      const nested = orm.query.orders.findFirst({ with: { items: true } });
      await expect(nested).rejects.toSatisfy((error: unknown) => isSheafError(error, 'INVALID_ID'));
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'drizzle on MySQL',
  (db) => {
    let pool: mysql.Pool;
    let generated: Generated;
    const prefetched: bigint[] = [];

    beforeAll(async () => {
      await install(db().executor, { shard: 2 });
      generated = await drizzleKitGenerate('mysql', 'schema-mysql.ts', triggerStatements);
      pool = mysql.createPool({ uri: db().url!, supportBigNumbers: true, bigNumberStrings: true });
      prefetched.push(...(await nextIds(db().executor, 100)));
      useIds(() => prefetched.shift()!);
      await mysqlMigrate(mysqlDrizzle(pool), { migrationsFolder: generated.folder });
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('drizzle-kit emits a plain bigint key (no AUTO_INCREMENT); the custom migration holds the triggers', () => {
      const sql = generated.sql.join('\n');
      expect(sql).toContain('`id` bigint NOT NULL');
      expect(sql).not.toMatch(/auto_increment/i);
      expect(sql).toContain('create trigger `orders_sheaf_id` before insert');
    });

    it('$returningId() returns the $defaultFn ids of single and multi-row inserts; relations hold', async () => {
      const [first, second, third] = prefetched.slice(0, 3);
      const result = await mysqlExample.placeOrder(mysqlDrizzle(pool, { schema: mysqlSchema, mode: 'default' }));
      expect(result.order?.id).toBe(first);
      expect(result.shardId).toBe(2);
      expect(result.itemIds).toEqual([second!.toString(), third!.toString()]);
      expect(result.order?.items.map((item) => item.id).sort()).toEqual(result.itemIds);
      for (const item of result.order!.items) expect(item.orderId).toBe(first);
    });

    it('rows inserted by other clients get their ids from the trigger of the custom migration', async () => {
      await db().executor.query("insert into orders (customer) values ('raw sql')");
      const [row] = await db().executor.query<{ id: string }>("select id from orders where customer = 'raw sql'");
      expect(decodeId(row!.id).shardId).toBe(2);
    });

    it('runs the guide example with a SnowflakeGenerator: a free worker id, never the shard of the database', async () => {
      const fresh = await mysql.createConnection({ uri: db().url! });
      await fresh.query('drop table order_items, orders, __drizzle_migrations');
      // The shard main() installs, then two processes holding the lowest free worker ids.
      await install(db().executor, { shard: 1 });
      const held = [await SnowflakeGenerator.start(db().executor), await SnowflakeGenerator.start(db().executor)];
      try {
        const result = await mysqlExample.main(db().url!, generated.folder);
        expect([1, ...held.map((generator) => generator.workerId)]).not.toContain(decodeId(result.order!.id).shardId);
        expect(result.order?.items).toHaveLength(2);
      } finally {
        useIds(() => prefetched.shift()!);
        await Promise.all(held.map((generator) => generator.close()));
        await fresh.end();
      }
    });

    it('refuses ids that mysql2 already rounded (a pool without bigNumberStrings)', async () => {
      const lossy = mysql.createPool({ uri: db().url! });
      const table = mysqlTable('orders', { id: mysqlSheafId({ ids: () => 1n }).primaryKey(), n: int('n') });
      try {
        const orm = mysqlDrizzle(lossy);
        await expect(orm.select({ id: table.id }).from(table).limit(1)).rejects.toSatisfy((error: unknown) =>
          isSheafError(error, 'INVALID_ID'),
        );
      } finally {
        await lossy.end();
      }
    });

    it('a nextSync() source with no id in memory throws IDS_UNAVAILABLE instead of inserting without a key', async () => {
      const table = mysqlTable('orders', { id: mysqlSheafId({ ids: { nextSync: () => undefined } }).primaryKey() });
      const orm = mysqlDrizzle(pool);
      expectSheafError(() => orm.insert(table).values({}).toSQL(), 'IDS_UNAVAILABLE', 'cannot wait');
    });
  },
  { only: ['mariadb'] },
);

it('sheafId refuses number mode unless the layout keeps ids below 2^53', () => {
  expectSheafError(() => sheafId({ mode: 'number' }), 'INVALID_ARGUMENT', 'js53');
  expect(() => sheafId({ mode: 'number', layout: 'js53' })).not.toThrow();
  expectSheafError(() => mysqlSheafId({ ids: undefined as never }), 'INVALID_ARGUMENT', 'nextSync');
});
