import { AsyncLocalStorage } from 'node:async_hooks';
import { install, mysql2Executor, pgExecutor, type SnowflakeGenerator, type SqlExecutor } from '@sheaf/core';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
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
import { drizzleKitGenerate } from '../support/drizzle-kit.js';
import { clean, type IdSourceLike, IdTally, idSpaceReport } from '../support/id-space.js';

// docs/guides/drizzle.md, whole, on each part: the guide's program deploys (install on shard 1,
// drizzle-kit migrations), then processes place orders with ids from their own SnowflakeGenerator
// while others write into `orders` with the database's ids: PostgreSQL's column default (orders
// without `ids`, raw multi-row inserts), MariaDB's trigger from the custom migration (raw inserts).
const DB_SHARD = 1;
const PROCESSES = 4;
const ORDERS = 100;
const BATCH = 10;

/** Another client's multi-row insert into `orders`: the database keys each row. */
function rawInsert(executor: SqlExecutor): Promise<unknown> {
  const values = Array.from({ length: BATCH }, (_, i) => `(${executor.dialect.placeholder(i + 1)})`);
  return executor.query(
    `insert into orders (customer) values ${values.join(', ')}`,
    values.map(() => 'raw'),
  );
}

/** The rows of `orders`; the database made the id of every row whose customer is not `appCustomer`. */
async function writtenRows(executor: SqlExecutor, appCustomer: string) {
  const rows = await executor.query<{ id: string | bigint; customer: string }>('select id, customer from orders');
  return rows.map((row) => ({ id: row.id, byDatabase: row.customer !== appCustomer }));
}

/** The deploy step placed an order: the run starts from empty tables. */
async function emptyTables(executor: SqlExecutor): Promise<void> {
  await executor.query('delete from order_items');
  await executor.query('delete from orders');
}

type PgOrm = PgDatabase<PgQueryResultHKT, typeof pgSchema>;

describeTargets(
  'docs/guides/drizzle.md setup, pg-core: app ids and the column default in one table',
  (db, target) => {
    const apps: { orm: PgOrm; snowflake: SnowflakeGenerator; pool?: pg.Pool }[] = [];
    let orm: PgOrm;
    let dbPool: pg.Pool | undefined;

    /** One process: its own pool (PGlite: the one connection), worker id and drizzle instance. */
    async function start() {
      if (target === 'pglite') return { orm, snowflake: await pgExample.startIds(db().executor) };
      const own = new pg.Pool({ connectionString: db().url });
      return {
        orm: pgDrizzle(own, { schema: pgSchema }),
        snowflake: await pgExample.startIds(pgExecutor(own)),
        pool: own,
      };
    }

    beforeAll(async () => {
      const generated = await drizzleKitGenerate('postgresql', 'schema-pg.ts');
      if (target === 'pglite') {
        const lite = pgliteDrizzle(db().pglite!, { schema: pgSchema });
        orm = lite;
        await install(db().executor, { shard: DB_SHARD });
        await pgliteMigrate(lite, { migrationsFolder: generated.folder });
      } else {
        await pgExample.main(db().url!, generated.folder);
        dbPool = new pg.Pool({ connectionString: db().url });
        orm = pgDrizzle(dbPool, { schema: pgSchema });
      }
      await emptyTables(db().executor);
      for (let i = 0; i < PROCESSES; i++) apps.push(await start());
    });
    afterAll(async () => {
      for (const app of apps.splice(0)) {
        await app.snowflake.close();
        await app.pool?.end();
      }
      await dbPool?.end();
    });

    it(`${PROCESSES} processes with app ids, orders keyed by the default and raw inserts at once (PGlite: interleaved): 0 collisions`, async () => {
      const tally = new IdTally();
      const writers = target === 'pglite' ? [db().executor] : await db().sessions(2);
      const placing = Promise.all(
        apps.map((app) => {
          const ids = tally.record(app.snowflake.workerId, app.snowflake);
          return tally.repeat(ORDERS, () => pgExample.placeOrder(app.orm, { customer: 'app', ids: ids.next }));
        }),
      );
      await Promise.all([
        placing,
        tally.during(placing, () => pgExample.placeOrder(orm, { customer: 'db' })),
        ...writers.map((writer) => tally.during(placing, () => rawInsert(writer), BATCH)),
      ]);
      expect(idSpaceReport(tally, await writtenRows(db().executor, 'app'), DB_SHARD)).toEqual(clean(tally.attempted));
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets(
  'docs/guides/drizzle.md setup, mysql-core: $defaultFn app ids and the trigger in one table',
  (db) => {
    const apps: { source: IdSourceLike; snowflake: SnowflakeGenerator; pool: mysql.Pool }[] = [];
    // Each process has its own module state; here one module serves them all, so the schema's
    // $defaultFn takes the id source of the process whose insert calls it.
    const current = new AsyncLocalStorage<IdSourceLike>();
    const tally = new IdTally();

    beforeAll(async () => {
      const generated = await drizzleKitGenerate('mysql', 'schema-mysql.ts', triggerStatements);
      await mysqlExample.main(db().url!, generated.folder);
      await emptyTables(db().executor);
      for (let i = 0; i < PROCESSES; i++) {
        const pool = mysql.createPool({ uri: db().url!, supportBigNumbers: true, bigNumberStrings: true });
        const snowflake = await mysqlExample.startIds(mysql2Executor(pool));
        apps.push({ source: tally.record(snowflake.workerId, snowflake), snowflake, pool });
      }
      useIds(() => current.getStore()!.next());
    });
    afterAll(async () => {
      for (const app of apps.splice(0)) {
        await app.snowflake.close();
        await app.pool.end();
      }
    });

    it(`${PROCESSES} processes inserting through drizzle and raw inserts through the trigger at once: 0 collisions`, async () => {
      const writers = await db().sessions(2);
      const placing = Promise.all(
        apps.map((app) => {
          const orm = mysqlDrizzle(app.pool, { schema: mysqlSchema, mode: 'default' });
          return current.run(app.source, () => tally.repeat(ORDERS, () => mysqlExample.placeOrder(orm)));
        }),
      );
      await Promise.all([placing, ...writers.map((writer) => tally.during(placing, () => rawInsert(writer), BATCH))]);
      expect(idSpaceReport(tally, await writtenRows(db().executor, 'ada'), DB_SHARD)).toEqual(clean(tally.attempted));
    });
  },
  { only: ['mariadb'] },
);
