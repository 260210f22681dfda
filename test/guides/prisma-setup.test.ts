import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, placeOrder, startApp, startIds } from '../../docs/guides/examples/prisma/app.js';
import { mysqlMigration } from '../../docs/guides/examples/prisma/migration.js';
import { PrismaClient as MysqlClient } from '../.generated/prisma/mysql/client.js';
import { PrismaClient as PgClient } from '../.generated/prisma/postgres/client.js';
import { describeTargets, type TestDatabase } from '../support/database.js';
import { clean, IdTally, idSpaceReport } from '../support/id-space.js';

// docs/guides/prisma.md, whole: install (shard 1) + migration, and processes that each lease a worker
// id and place orders through the extension, while other clients insert into `orders` with raw SQL
// (the column default on PostgreSQL, the trigger on MariaDB) for as long as the orders go on. Raw rows
// carry total 0.
const DB_SHARD = 1;
const PROCESSES = 4;
const WRITERS = 2;
const ORDERS = 100;
const RAW_BATCH = 10;

type App = { workerId: number; prisma: Awaited<ReturnType<typeof startApp>>['prisma']; close(): Promise<void> };

/** One process of the application, as the guide starts it on each database. */
async function start(db: TestDatabase): Promise<App> {
  if (db.target === 'postgres') return startApp(db.url!);
  const client = (
    db.target === 'mariadb'
      ? new MysqlClient({ adapter: new PrismaMariaDb(db.url!.replace(/^mysql:/, 'mariadb:')) })
      : new PgClient({ adapter: new PrismaPGlite(db.pglite!) })
  ) as PgClient;
  const { snowflake, prisma } = await startIds(db.executor, client);
  return {
    workerId: snowflake.workerId,
    prisma,
    async close() {
      await prisma.$disconnect();
      await snowflake.close();
    },
  };
}

describeTargets('docs/guides/prisma.md setup: app ids through the extension and raw SQL in one table', (db, target) => {
  const apps: App[] = [];
  let customerId: bigint;
  let email = 0;

  beforeAll(async () => {
    await migrate(db().executor, target === 'mariadb' ? mysqlMigration : undefined);
    for (let i = 0; i < PROCESSES; i++) apps.push(await start(db()));
    customerId = (await apps[0]!.prisma.customer.create({ data: { email: 'raw@example.com' } })).id;
  });
  afterAll(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  const place = (tally: IdTally, app: App) =>
    placeOrder(app.prisma, `p${email++}@example.com`).then(({ order }) =>
      tally.add(app.workerId, order.id, ...order.items.map((item) => item.id)),
    );
  // Another client's multi-row insert: the database keys each row, several in one millisecond.
  const rawInsert = (executor = db().executor) => {
    const values = Array.from({ length: RAW_BATCH }, (_, i) => `(${executor.dialect.placeholder(i + 1)}, 0)`);
    return executor.query(
      `insert into orders (customer_id, total) values ${values.join(', ')}`,
      values.map(() => customerId.toString()),
    );
  };
  const report = async (tally: IdTally) => {
    const rows = await db().executor.query<{ id: string | bigint; total: number }>('select id, total from orders');
    return idSpaceReport(
      tally,
      rows.map((row) => ({ id: row.id, byDatabase: Number(row.total) === 0 })),
      DB_SHARD,
    );
  };

  it(`${PROCESSES} processes placing orders and ${WRITERS} raw SQL writers at once (PGlite: interleaved on its one connection): 0 collisions`, async () => {
    const tally = new IdTally();
    const writers = target === 'pglite' ? [db().executor] : await db().sessions(WRITERS);
    const placing = Promise.all(apps.map((app) => tally.repeat(ORDERS, () => place(tally, app))));
    await Promise.all(writers.map((writer) => tally.during(placing, () => rawInsert(writer), RAW_BATCH)));
    expect(await report(tally)).toEqual(clean(tally.attempted));
  });
});
