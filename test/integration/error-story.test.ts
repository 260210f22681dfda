import {
  BatchedDbIds,
  fromDatabaseError,
  install,
  isSheafError,
  nextIdSql,
  requireInstalled,
  SegmentGenerator,
  SheafError,
  type SheafErrorCode,
  SnowflakeGenerator,
  sheafTriggerSql,
  TicketClient,
} from '@sheaf/core';
import { insertWithIds, installSheaf, sheafId } from '@sheaf/knex';
import { sql } from 'drizzle-orm';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idOnShard, sheafCodeOf, withSheafErrors } from '../../docs/guides/examples/errors/orm-errors.js';
import { onDatabase, urlFor } from '../cli/cli-targets.js';
import { doctor } from '../cli/doctor-run.js';
import { sheaf } from '../cli/run-sheaf.js';
import { describeTargets, type TestDatabase } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { connectKnex } from '../support/knex.js';
import { type OrmClients, ormClients, rejectionOf } from '../support/orm-clients.js';

/** The statements each dialect needs here: sheaf's own calls, and tables whose keys sheaf assigns. */
const dialectSql = {
  postgres: {
    outOfRange: 'select sheaf.next_id(99999)',
    // The database issues shard 1: a key assigned on shard 6 is refused with SHARD_NOT_OWNED.
    customerOnShard6: [
      'create table "Customer" (id bigint not null default sheaf.next_id(6) primary key, email text not null unique)',
    ],
    insertCustomer: `insert into "Customer" (email) values ('drizzle@example.com')`,
  },
  mysql: {
    outOfRange: 'select sheaf_next_shard_id(99999)',
    customerOnShard6: [
      'create table Customer (id bigint not null auto_increment primary key, email varchar(191) not null unique)',
      'create trigger customer_shard_6 before insert on Customer for each row set new.id = sheaf_next_shard_id(6)',
    ],
    insertCustomer: `insert into Customer (email) values ('drizzle@example.com')`,
  },
};

const dialectOf = (db: TestDatabase) => dialectSql[db.executor.dialect.name];
/** `fromDatabaseError(error)` must be a SheafError of `code` whose message holds every fragment. */
const expectConverted = (error: unknown, code: SheafErrorCode, ...fragments: string[]) =>
  expectSheafError(
    () => {
      throw fromDatabaseError(error);
    },
    code,
    ...fragments,
  );
/** How NOT_INSTALLED names the database: MySQL's messages say which; PostgreSQL's do not. */
const whereOf = (db: TestDatabase) => (db.target === 'mariadb' ? `database ${new URL(db.url!).pathname.slice(1)}` : '');

describe('fromDatabaseError on wrapped errors (no database)', () => {
  const signal = {
    errno: 30015,
    sqlState: '45000',
    message: 'sheaf: shard 6 is not issued by this database (shard 1)',
  };

  it('looks through cause chains and Prisma meta, returns a SheafError inside as it is, and gives up after 8 levels', () => {
    const inPrisma = { code: 'P2039', message: 'Invalid …', meta: { driverAdapterError: { cause: signal } } };
    expect(expectConverted(inPrisma, 'SHARD_NOT_OWNED').cause).toBe(inPrisma);
    const inner = new SheafError('LEASE_LOST', 'gone');
    expect(fromDatabaseError(new Error('wrapper', { cause: inner }))).toBe(inner);
    let deep: object = signal;
    for (let i = 0; i < 8; i++) deep = { message: `level ${i}`, cause: deep };
    expect(fromDatabaseError(deep)).toBe(deep);
    const cycle: { message: string; cause?: unknown } = { message: 'loop' };
    cycle.cause = cycle;
    expect(fromDatabaseError(cycle)).toBe(cycle);
  });

  it("strips knex's statement prefix, and leaves MySQL's missing SAVEPOINT (errno 1305 too) alone", () => {
    const knexStyle = { code: 'SH001', message: 'select sheaf.next_id(99999) - sheaf: shard 99999 does not fit' };
    expectConverted(knexStyle, 'SHARD_OUT_OF_RANGE');
    expect((fromDatabaseError(knexStyle) as Error).message).toBe('sheaf: shard 99999 does not fit');
    const savepoint = { errno: 1305, sqlState: '42000', message: 'SAVEPOINT sheaf_install does not exist' };
    expect(fromDatabaseError(savepoint)).toBe(savepoint);
  });

  it("MySQL: sheaf's tables and admin routines asked for in the application's database point to sheaf_<database>", () => {
    for (const [errno, message] of [
      [1305, 'PROCEDURE shop.sheaf_configure does not exist'],
      [1146, "Table 'shop.sheaf_settings' doesn't exist"],
    ] as const) {
      const converted = fromDatabaseError({ errno, sqlState: '42000', message }) as SheafError;
      expect(converted.code).toBe('NOT_INSTALLED');
      expect(converted.message).toMatch(/does not exist: sheaf keeps it in database sheaf_shop, .*use `sheaf_shop`\./);
      expect(converted.details).toMatchObject({ database: 'shop', state: 'sheaf_shop' });
    }
    // What applications call stays in their database: missing there, sheaf is not installed.
    const missing = fromDatabaseError({
      errno: 1305,
      message: 'FUNCTION shop.sheaf_next_id does not exist',
    }) as SheafError;
    expect(missing.message).toMatch(/^sheaf: sheaf is not installed in database shop/);
  });

  it('tells a missing function (arguments a sheaf function takes) from wrong argument types on PostgreSQL', () => {
    const missing = { code: '42883', message: 'function sheaf.alloc_segment(unknown, integer) does not exist' };
    expectConverted(missing, 'NOT_INSTALLED', 'this database', 'alloc_segment');
    const wrongType = { code: '42883', message: 'function sheaf.next_ids(numeric) does not exist' };
    expectConverted(wrongType, 'INVALID_ARGUMENT', '(numeric)');
  });
});

describeTargets('sheaf SQL errors through drivers and ORMs', (db) => {
  let clients: OrmClients;
  beforeAll(async () => {
    await install(db().executor, { shard: 1 });
    for (const statement of dialectOf(db()).customerOnShard6) await db().executor.query(statement);
    clients = ormClients(db());
  });
  afterAll(() => clients?.close());

  it('a driver error converts with fromDatabaseError; the driver error is its cause', async () => {
    for (const [driver, run] of Object.entries(clients.drivers)) {
      const error = await rejectionOf(run(dialectOf(db()).outOfRange));
      const converted = expectConverted(error, 'SHARD_OUT_OF_RANGE', '99999');
      expect(converted.cause, driver).toBe(error);
      expect(converted.details).toMatchObject({ sqlState: 'SH001' });
    }
  });

  it('Drizzle: "Failed query" converts, its DrizzleQueryError the cause; the guide example answers 400', async () => {
    const error = await rejectionOf(clients.drizzle.execute(sql.raw(dialectOf(db()).outOfRange)));
    expect((error as Error).message).toMatch(/^Failed query/);
    expect(sheafCodeOf(error)).toBe('SHARD_OUT_OF_RANGE');
    expect((fromDatabaseError(error) as Error).cause).toBe(error);
    await expectSheafRejection(
      withSheafErrors(() => clients.drizzle.execute(sql.raw(dialectOf(db()).insertCustomer))),
      'SHARD_NOT_OWNED',
      'shard 6',
    );
    if (db().target === 'mariadb') return;
    const pgDrizzle = clients.drizzle as Parameters<typeof idOnShard>[0];
    expect(await idOnShard(pgDrizzle, 99999)).toMatchObject({
      status: 400,
      body: expect.stringMatching(/shard 99999/),
    });
    expect(await idOnShard(pgDrizzle, 6)).toMatchObject({ status: 400, body: expect.stringMatching(/not issued/) });
    expect((await idOnShard(pgDrizzle, 1)).status).toBe(200);
  });

  it('Prisma without the extension: fromDatabaseError(prismaError) is the SheafError, the Prisma error its cause', async () => {
    const error = await rejectionOf(clients.prisma.customer.create({ data: { email: 'plain@example.com' } }));
    expect((error as Error).name).toBe('PrismaClientKnownRequestError');
    const converted = expectConverted(error, 'SHARD_NOT_OWNED', 'shard 6');
    expect(converted.cause).toBe(error);
    const raw = await rejectionOf(clients.prisma.$queryRawUnsafe(dialectOf(db()).outOfRange));
    expect(sheafCodeOf(raw)).toBe('SHARD_OUT_OF_RANGE');
  });

  it('Prisma with the extension: model and raw queries reject with the SheafError; other errors stay Prisma’s', async () => {
    const error = await expectSheafRejection(
      clients.extended.customer.create({ data: { email: 'extended@example.com' } }),
      'SHARD_NOT_OWNED',
      'shard 6',
    );
    expect((error.cause as Error).name).toBe('PrismaClientKnownRequestError');
    await expectSheafRejection(clients.extended.$queryRawUnsafe(dialectOf(db()).outOfRange), 'SHARD_OUT_OF_RANGE');
    const other = await rejectionOf(clients.extended.$queryRawUnsafe('select * from no_such_table'));
    expect(isSheafError(other)).toBe(false);
  });
});

describeTargets('a database without sheaf', (db, target) => {
  let clients: OrmClients;
  beforeAll(async () => {
    // MariaDB accepts a trigger that calls a routine that does not exist yet: it fails when it fires.
    if (target === 'mariadb') {
      for (const statement of [
        'create table Customer (id bigint not null auto_increment primary key, email varchar(191) not null unique)',
        sheafTriggerSql('Customer', 'id').create,
      ]) {
        await db().executor.query(statement);
      }
    }
    clients = ormClients(db());
  });
  afterAll(() => clients?.close());

  it('every generator refuses with NOT_INSTALLED; requireInstalled names the database', async () => {
    const { executor } = db();
    await expectSheafRejection(SnowflakeGenerator.start(executor), 'NOT_INSTALLED', 'run `sheaf install`');
    await expectSheafRejection(new SegmentGenerator(executor, { bizTag: 'orders' }).start(), 'NOT_INSTALLED');
    await expectSheafRejection(new TicketClient([executor], { name: 'orders' }).next(), 'NOT_INSTALLED');
    const batched = new BatchedDbIds(executor);
    await expectSheafRejection(batched.next(), 'NOT_INSTALLED');
    await batched.close();
    const database = target === 'mariadb' ? new URL(db().url!).pathname.slice(1) : await currentDatabase(db());
    await expectSheafRejection(requireInstalled(executor), 'NOT_INSTALLED', `in database ${database} (`);
  });

  it('sheaf SQL through drivers, Drizzle and Prisma converts to NOT_INSTALLED', async () => {
    const call = db().executor.dialect.name === 'postgres' ? 'select sheaf.next_id()' : 'select sheaf_next_id()';
    for (const run of Object.values(clients.drivers)) {
      const error = await rejectionOf(run(call));
      expectConverted(error, 'NOT_INSTALLED', whereOf(db()), 'sheaf install');
    }
    expect(sheafCodeOf(await rejectionOf(clients.drizzle.execute(sql.raw(call))))).toBe('NOT_INSTALLED');
    await expectSheafRejection(clients.extended.$queryRawUnsafe(call), 'NOT_INSTALLED');
    if (target === 'mariadb') {
      // The trigger made before install: the insert fails, and says why.
      const create = () => clients.extended.customer.create({ data: { email: 'early@example.com' } });
      await expectSheafRejection(create(), 'NOT_INSTALLED', whereOf(db()), 'sheaf_next_id does not exist');
    } else {
      await expectSheafRejection(
        db().executor.query(`create table early (id bigint primary key default ${nextIdSql()})`),
        'NOT_INSTALLED',
        'schema "sheaf" does not exist',
      );
    }
  });
});

describeTargets(
  'NOT_INSTALLED once sheaf was there: an upgrade replacing a routine',
  (db) => {
    // MySQL upgrades replace routines by drop and create; a rename stands in for that window here.
    const hide = (fn: string, args: string, hidden: boolean) =>
      db().executor.query(
        hidden
          ? `alter function sheaf.${fn}(${args}) rename to ${fn}_away`
          : `alter function sheaf.${fn}_away(${args}) rename to ${fn}`,
      );
    const retry = { minMs: 20, maxMs: 50 };

    it('a SegmentGenerator that had fetched waits for the routine instead of failing', async () => {
      await install(db().executor, { shard: 1 });
      await db().executor.query("select sheaf.create_segment('window', 1)");
      const segments = await new SegmentGenerator(db().executor, {
        bizTag: 'window',
        step: 1,
        dynamicStep: false,
        retry,
      }).start();
      try {
        await segments.next();
        while (segments.stats().remaining < 1 || segments.stats().fetching) await new Promise((r) => setTimeout(r, 10));
        await hide('alloc_segment', 'text, integer', true);
        await segments.next(); // the spare; its refill fails
        const waiting = segments.next().then(
          (id) => ({ id }),
          (error: unknown) => ({ error }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(segments.stats().lastError).toMatch(/sheaf is not installed/);
        await hide('alloc_segment', 'text, integer', false);
        expect(await waiting).toMatchObject({ id: expect.any(Number) });
      } finally {
        await segments.close();
      }
    });

    it('a TicketClient counts a server that had answered as down (TICKETS_UNAVAILABLE), not as NOT_INSTALLED', async () => {
      await db().executor.query("select sheaf.create_ticket('window', 1, 1)");
      const tickets = new TicketClient([db().executor], { name: 'window', retry });
      await tickets.next();
      await hide('next_ticket', 'text', true);
      const down = await expectSheafRejection(tickets.next(), 'TICKETS_UNAVAILABLE', 'sheaf is not installed');
      expect(down.message).toMatch(/all 1 ticket servers are down/);
      await hide('next_ticket', 'text', false);
      expect(await tickets.next()).toBe(2n);
    });
  },
  { only: ['postgres', 'pglite'] },
);

describeTargets('knex helpers before and after install', (db, target) => {
  let k: Knex;
  const mysql = target === 'mariadb';
  beforeAll(async () => {
    // PGlite: knex-pglite opens an embedded database of its own, also without sheaf.
    k = await connectKnex(target, db().url);
  });
  afterAll(() => k?.destroy());

  const ordersTable = (table: Knex.CreateTableBuilder) => {
    sheafId(table, 'id');
    table.string('customer');
  };

  it('sheafId refuses the migration with NOT_INSTALLED before creating the table (MySQL would accept its trigger)', async () => {
    const migrate = mysql
      ? k.schema.createTable('orders', ordersTable)
      : k.transaction((trx) => trx.schema.createTable('orders', ordersTable));
    await expectSheafRejection(migrate, 'NOT_INSTALLED', mysql ? whereOf(db()) : 'in database', 'sheaf install');
    expect(await k.schema.hasTable('orders')).toBe(false);
  });

  it.runIf(mysql)('insertWithIds refuses with NOT_INSTALLED (call sheaf_next_ids)', async () => {
    await k.schema.createTable('plain', (table) => table.bigInteger('id').primary());
    await expectSheafRejection(insertWithIds(k, 'plain', [{}, {}]), 'NOT_INSTALLED', 'sheaf_next_ids');
  });

  it('after installSheaf: sheafId migrates, and insertWithIds rejects with the SheafError of the key', async () => {
    await installSheaf(k, { shard: 1 });
    await k.schema.createTable('orders', ordersTable);
    const [id] = await insertWithIds(k, 'orders', { customer: 'a' });
    expect(id! > 0n).toBe(true);
    await k.raw(dialectSql[mysql ? 'mysql' : 'postgres'].customerOnShard6[0]!);
    if (mysql) {
      await k.raw(dialectSql.mysql.customerOnShard6[1]!);
      // insertWithIds assigns MySQL ids itself; a query of the application's own converts with fromDatabaseError.
      const error = await rejectionOf(k('Customer').insert({ email: 'knex@example.com' }));
      expect(sheafCodeOf(error)).toBe('SHARD_NOT_OWNED');
    } else {
      await expectSheafRejection(insertWithIds(k, 'Customer', { email: 'knex@example.com' }), 'SHARD_NOT_OWNED');
    }
  });
});

async function currentDatabase(db: TestDatabase): Promise<string> {
  const [row] = await db.executor.query<{ name: string }>('select current_database() as name');
  return row!.name;
}

// The CLI as its own process: PGlite boots in each one (1 to 2 s on a busy machine).
const cliTimeout = 120_000;

describeTargets('sheaf status exit code', (db, target) => {
  it(
    'exits 1 with NOT_INSTALLED where sheaf is not installed (the status still printed), 0 once it is',
    async () => {
      const url = await urlFor(target, db());
      await onDatabase(url, db(), (executor) => executor.query('select 1'));
      const missing = await sheaf(['status', '--url', url, '--json']);
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout)).toMatchObject({ installed: false });
      expect(missing.stderr).toMatch(/^sheaf: sheaf is not installed on .+; run `sheaf install` \(NOT_INSTALLED\)\n$/);
      const text = await sheaf(['status', '--url', url]);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^sheaf is not installed on /);
      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      expect((await sheaf(['status', '--url', url])).code).toBe(0);
    },
    cliTimeout,
  );
});

describeTargets(
  'sheaf doctor: keys without their trigger (MySQL/MariaDB)',
  (db) => {
    const triggersCheck = async () => {
      const { report } = await doctor([db().url!]);
      const found = report.databases[0]!.checks.find((c) => c.name === 'triggers');
      if (!found) throw new Error(`no triggers check in ${JSON.stringify(report.databases[0])}`);
      return found;
    };
    const missing = (details: Record<string, unknown> = {}) =>
      (details.missing as { table: string; reason: string }[]).map(({ table, reason }) => [table, reason]);

    it(
      'warns about a BIGINT AUTO_INCREMENT key that lacks its trigger: a sheaf-sized counter, or triggers elsewhere',
      async () => {
        await install(db().executor, { shard: 1 });
        for (const statement of [
          // A trigger once filled it (its counter followed the ids), and is gone.
          'create table dropped (id bigint not null auto_increment primary key) auto_increment = 382913458368151552',
          'create table counter (id bigint not null auto_increment primary key)',
          'create table small (id int not null auto_increment primary key)',
        ]) {
          await db().executor.query(statement);
        }
        const first = await triggersCheck();
        expect(first).toMatchObject({ status: 'warn', details: { withTrigger: 0 } });
        expect(first.message).toMatch(/dropped\.id \(counter at 382913458368151552, a sheaf-sized value\)/);
        expect(missing(first.details)).toEqual([['dropped', 'sheaf-sized counter']]);

        await db().executor.query('create table keyed (id bigint not null auto_increment primary key)');
        await db().executor.query(sheafTriggerSql('keyed', 'id').create);
        const second = await triggersCheck();
        expect(second).toMatchObject({ status: 'warn', details: { withTrigger: 1 } });
        expect(missing(second.details)).toEqual([
          ['counter', 'other tables have sheaf triggers'],
          ['dropped', 'sheaf-sized counter'],
        ]);

        await db().executor.query(sheafTriggerSql('counter', 'id').create);
        await db().executor.query('drop table dropped');
        const third = await triggersCheck();
        expect(third).toMatchObject({ status: 'ok', details: { withTrigger: 2, missing: [] } });
        expect(third.message).toBe('2 tables with a sheaf trigger; no sheaf-like key without one');
      },
      cliTimeout,
    );
  },
  { only: ['mariadb'] },
);
