import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SqlExecutor } from '@sheaf/core';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeEachTarget } from '../support/database.js';
import {
  columnTypes,
  fixtureDatabase,
  fixtureTables,
  nastyTable,
  snapshot,
  withSql,
} from './migrate-postgres-support.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test, PGlite booting in each, and a few thousand rows to backfill.
const timeout = 180_000;

/** The fixture's integer columns that are neither keys nor references to one: the only ones left narrower than bigint. */
const untouched = ['public.order_lines.quantity', 'public.products.price_cents'];

/**
 * The fixture's data: the shared snapshot's joins, and per table a row count and a checksum of its
 * rows as jsonb. jsonb orders keys by name, and the swap moves the new columns to the end of the
 * table, which the shared row-text fingerprints would see as a change.
 */
async function contents(sql: SqlExecutor): Promise<unknown> {
  const tables: string[] = [];
  for (const table of [...fixtureTables, nastyTable]) {
    const name = `${sql.dialect.quoteIdent(table.schema)}.${sql.dialect.quoteIdent(table.name)}`;
    const [row] = await sql.query<{ rows: string; sum: string }>(
      `select count(*)::text as rows, coalesce(sum(('x' || left(md5(to_jsonb(r)::text), 15))::bit(60)::bigint), 0)::text as sum
       from ${name} r`,
    );
    tables.push(`${table.schema}.${table.name}: ${row?.rows} rows, ${row?.sum}`);
  }
  return { joins: (await snapshot(sql)).joins, tables };
}

/** Objects the online migration creates while it runs and must leave none of. */
async function leftovers(sql: SqlExecutor): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    // Index columns keep the names they were built on (id_sheaf): PostgreSQL has no rename for them.
    `select attrelid::regclass::text || '.' || attname as name from pg_attribute join pg_class c on c.oid = attrelid
       where c.relkind = 'r' and attname like '%\\_sheaf' and attnum > 0 and not attisdropped
     union all select tgname from pg_trigger where tgname = 'zz_sheaf_online_copy'
     union all select proname from pg_proc where proname like 'online\\_copy\\_%'
     union all select relname from pg_class where relname like 'sheaf\\_online\\_%'
     union all select conname from pg_constraint where conname like 'sheaf\\_online\\_%' or not convalidated`,
  );
  return rows.map((row) => row.name);
}

/** Checks the fixture after an online migration: every key and reference bigint, defaults, dependents back. */
async function expectMigrated(sql: SqlExecutor): Promise<void> {
  const types = Object.entries(await columnTypes(sql));
  expect(
    types
      .filter(([, type]) => type !== 'bigint')
      .map(([column]) => column)
      .sort(),
  ).toEqual(untouched);
  expect(await leftovers(sql)).toEqual([]);
  const [defaults] = await sql.query<{ orders: string; categories: string }>(
    `select pg_get_expr(o.adbin, o.adrelid) as orders, pg_get_expr(c.adbin, c.adrelid) as categories
     from pg_attrdef o, pg_attrdef c
     where o.adrelid = 'orders'::regclass and o.adnum = (select attnum from pg_attribute where attrelid = 'orders'::regclass and attname = 'id')
       and c.adrelid = 'categories'::regclass and c.adnum = (select attnum from pg_attribute where attrelid = 'categories'::regclass and attname = 'id')`,
  );
  expect(defaults).toEqual({ orders: 'sheaf.next_id()', categories: 'sheaf.next_id()' });
  // serial's sequence and the identity's are retired with the old columns; keys bigint already
  // (bigserial, a bigint identity) keep their column and lose their generator the same way.
  const keys = await sql.query<{ table: string; identity: string; default: string | null }>(
    `select attrelid::regclass::text as table, attidentity::text as identity, pg_get_expr(d.adbin, d.adrelid) as default
     from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where attrelid in ('categories'::regclass, 'shipments'::regclass, 'audit_log'::regclass) and attname = 'id'
     order by 1`,
  );
  expect(keys).toEqual(
    ['audit_log', 'categories', 'shipments'].map((table) => ({ table, identity: '', default: 'sheaf.next_id()' })),
  );
  expect(
    await sql.query(
      `select relname from pg_class where relname in ('orders_id_seq', 'categories_id_seq', 'shipments_id_seq', 'audit_log_id_seq')`,
    ),
  ).toEqual([]);
  const triggers = await sql.query<{ name: string }>(
    `select tgname as name from pg_trigger where tgrelid = 'orders'::regclass and not tgisinternal order by 1`,
  );
  expect(triggers.map((t) => t.name)).toEqual(['orders_audit', 'orders_customer_changed']);
  const [stats] = await sql.query<{ n: number }>('select count(*)::int as n from customer_stats');
  expect(stats?.n).toBe(200);
}

/** A new row's key: a sheaf id, at or above the first one of a minute ago. */
async function expectSheafIds(sql: SqlExecutor): Promise<void> {
  const [row] = await sql.query<{ id: string; floor: string }>(
    `with c as (insert into customers (tenant_id, email) values (1, 'new-' || gen_random_uuid() || '@example.com') returning id)
     select id::text as id, sheaf.id_floor(now() - interval '1 minute')::text as floor from c`,
  );
  expect(BigInt(row!.id)).toBeGreaterThanOrEqual(BigInt(row!.floor));
}

describeEachTarget(
  'sheaf migrate --online on PostgreSQL',
  (target) => {
    it(
      'migrates every table of the fixture, keeps every row, and a second run has nothing to do',
      async () => {
        const url = await fixtureDatabase(target);
        const before = await withSql(url, contents);
        const run = await sheaf(['migrate', '--url', url, '--all', '--online']);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/^migrated .*public\.orders.* online \(swap held locks \d+ ms\)$/m);
        expect(run.stderr).toMatch(/^backfill public\.order_lines: 1200\/1200 rows \(100%\)/m);
        expect(run.stderr).toMatch(/^online: swapped 12 table\(s\) in one transaction; locks held [\d.]+ ms$/m);

        await withSql(url, async (sql) => {
          expect(await contents(sql)).toEqual(before);
          await expectMigrated(sql);
          await expectSheafIds(sql);
          const states = await sql.query<{ phase: string }>('select distinct phase from sheaf.online_migrations');
          expect(states).toEqual([{ phase: 'done' }]);
        });

        const again = await sheaf(['migrate', '--url', url, '--all', '--online']);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toContain('nothing to do');
      },
      timeout,
    );

    it.skipIf(target === 'pglite')(
      'keeps every write of a session inserting and updating through the old sequences meanwhile',
      async () => {
        const url = await fixtureDatabase(target);
        await withSql(url, (sql) => addOrders(sql, 30_000));
        const writer = await Writer.start(url);
        const run = await sheaf(['migrate', '--url', url, '--all', '--online']);
        const writes = await writer.stop();
        expect(run.code, run.stderr).toBe(0);

        await withSql(url, async (sql) => {
          expect(await writer.differences(sql)).toEqual([]);
          await expectMigrated(sql);
          await expectSheafIds(sql);
        });
        // The writer ran through the backfill (it saw a table half copied) and past the swap.
        expect(writes.sawBackfill).toBe(true);
        expect(writes.oldKeys).toBeGreaterThan(0);
        expect(writes.sheafKeys).toBeGreaterThan(0);
      },
      timeout,
    );

    it.skipIf(target === 'pglite')(
      'resumes after the process is killed mid-backfill, without starting over',
      async () => {
        const url = await fixtureDatabase(target);
        const ordersTotal = await withSql(url, async (sql) => {
          await addOrders(sql, 20_000);
          const [row] = await sql.query<{ n: string }>('select count(*)::text as n from orders');
          return BigInt(row!.n);
        });
        const before = await withSql(url, contents);

        const killedAt = await killMidBackfill(url, 'public.orders');
        const interrupted = await withSql(url, (sql) =>
          sql.query<{ table: string; phase: string; done: string }>(
            `select table_name as table, phase, rows_done::text as done from sheaf.online_migrations where table_schema = 'public'`,
          ),
        );
        const orders = interrupted.find((row) => row.table === 'orders');
        expect(orders?.phase).toBe('prepared');
        expect(BigInt(orders!.done)).toBeGreaterThanOrEqual(killedAt);
        expect(BigInt(orders!.done)).toBeLessThan(ordersTotal);

        const resumed = await sheaf(['migrate', '--url', url, '--all', '--online']);
        expect(resumed.code, resumed.stderr).toBe(0);
        // Every table was prepared before the kill; the backfill of orders goes on from where it was.
        expect(resumed.stderr).not.toContain('copy trigger');
        const first = /^backfill public\.orders: (\d+)\//m.exec(resumed.stderr);
        expect(BigInt(first![1]!)).toBeGreaterThan(BigInt(orders!.done));

        await withSql(url, async (sql) => {
          expect(await contents(sql)).toEqual(before);
          await expectMigrated(sql);
          const [row] = await sql.query<{ done: string }>(
            `select rows_done::text as done from sheaf.online_migrations where table_name = 'orders'`,
          );
          // Rows are counted once per batch: a run that started over would count the first ones twice.
          expect(BigInt(row!.done)).toBe(ordersTotal);
        });
        expect((await sheaf(['migrate', '--url', url, '--all', '--online'])).stdout).toContain('nothing to do');
      },
      timeout,
    );
  },
  { only: ['postgres', 'pglite'] },
);

/** More orders (each with one line), so the backfill takes long enough to overlap other sessions. */
async function addOrders(sql: SqlExecutor, count: number): Promise<void> {
  await sql.query(
    `insert into orders (tenant_id, customer_id, status)
     select c.tenant_id, c.id, 'new' from generate_series(1, $1::int) n join customers c on c.id = 1 + n % 200`,
    [count],
  );
  await sql.query(
    `insert into order_lines (order_id, tenant_id, product_id, quantity)
     select id, tenant_id, 1 + id % 150, 1 from orders where id > 400`,
  );
  // The swap re-creates the materialized view with its data: make that data current now.
  await sql.query('refresh materialized view customer_stats');
}

const runner = fileURLToPath(new URL('./online-runner.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts the online migration with small, paced batches, SIGKILLs it once it reports progress on
 * `table`, and resolves to the rows that progress line counted.
 */
function killMidBackfill(url: string, table: string): Promise<bigint> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', runner, url, '200', '20'], {
      cwd: root,
      env: { ...process.env, TSX_TSCONFIG_PATH: 'test/tsconfig.json' },
    });
    let stderr = '';
    let done: bigint | undefined;
    const progress = new RegExp(`^backfill ${table.replace('.', '\\.')}: (\\d+)/`, 'm');
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = progress.exec(stderr);
      if (match && done === undefined && BigInt(match[1]!) > 0n) {
        done = BigInt(match[1]!);
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL' && done !== undefined) resolve(done);
      else reject(new Error(`the online migration ended before it could be killed: ${stderr}`));
    });
  });
}

interface Writes {
  /** Rows inserted with keys from the old sequences, and with sheaf ids. */
  oldKeys: number;
  sheafKeys: number;
  /** Whether a write landed while a table was half backfilled. */
  sawBackfill: boolean;
}

/**
 * Another session inserting orders, lines and customers and updating orders' customer (a widened
 * foreign key) and lines' quantity, one statement at a time, until stopped; it remembers what each
 * row must hold.
 */
class Writer {
  readonly orders = new Map<string, string>();
  readonly quantities = new Map<string, number>();
  readonly writes: Writes = { oldKeys: 0, sheafKeys: 0, sawBackfill: false };
  private running = true;
  private loop: Promise<void> = Promise.resolve();

  private constructor(private readonly client: pg.Client) {}

  static async start(url: string): Promise<Writer> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const writer = new Writer(client);
    const { rows: orders } = await client.query('select id::text, customer_id::text from orders');
    for (const row of orders) writer.orders.set(row.id, row.customer_id);
    const { rows: lines } = await client.query('select id::text, quantity from order_lines');
    for (const row of lines) writer.quantities.set(row.id, row.quantity);
    writer.loop = writer.run();
    return writer;
  }

  /** Stops after a few more rounds, so that some land after the swap. */
  async stop(): Promise<Writes> {
    await new Promise((resolve) => setTimeout(resolve, 300));
    this.running = false;
    await this.loop;
    await this.client.end();
    return this.writes;
  }

  private async run(): Promise<void> {
    const ids = [...this.orders.keys()];
    for (let round = 0; this.running; round++) {
      const customer = String(1 + (round % 200));
      const { rows } = await this.client.query(
        `insert into orders (tenant_id, customer_id) select tenant_id, id from customers where id = $1 returning id::text, tenant_id`,
        [customer],
      );
      const order = rows[0];
      this.orders.set(order.id, customer);
      this.count(order.id);
      const line = await this.client.query(
        'insert into order_lines (order_id, tenant_id, product_id, quantity) values ($1, $2, 1, 1) returning id::text',
        [order.id, order.tenant_id],
      );
      this.quantities.set(line.rows[0].id, 1);
      const target = ids[(round * 7919) % ids.length]!;
      const moved = String(1 + ((round * 31) % 200));
      await this.client.query('update orders set customer_id = $2 where id = $1', [target, moved]);
      this.orders.set(target, moved);
      const lineId = [...this.quantities.keys()][(round * 104729) % this.quantities.size]!;
      await this.client.query('update order_lines set quantity = quantity + 1 where id = $1', [lineId]);
      this.quantities.set(lineId, this.quantities.get(lineId)! + 1);
      if (round % 5 === 0) await this.watchBackfill();
    }
  }

  private count(id: string): void {
    if (BigInt(id) < 2n ** 31n) this.writes.oldKeys++;
    else this.writes.sheafKeys++;
  }

  private async watchBackfill(): Promise<void> {
    const { rows: table } = await this.client.query(`select to_regclass('sheaf.online_migrations') is not null as ok`);
    if (!table[0].ok) return;
    const { rows } = await this.client.query(
      `select count(*)::int as n from sheaf.online_migrations where phase = 'prepared' and last_key is not null`,
    );
    if (rows[0].n > 0) this.writes.sawBackfill = true;
  }

  /** Rows whose customer or quantity differ from what this session wrote (or found), and rows missing or extra. */
  async differences(sql: SqlExecutor): Promise<string[]> {
    const orders = await sql.query<{ id: string; customer_id: string }>(
      'select id::text, customer_id::text from orders',
    );
    const lines = await sql.query<{ id: string; quantity: number }>('select id::text, quantity from order_lines');
    const found = [
      ...orders.map((row) => `order ${row.id} customer ${row.customer_id}`),
      ...lines.map((row) => `line ${row.id} quantity ${row.quantity}`),
    ];
    const expected = [
      ...[...this.orders].map(([id, customer]) => `order ${id} customer ${customer}`),
      ...[...this.quantities].map(([id, quantity]) => `line ${id} quantity ${quantity}`),
    ];
    const want = new Set(expected);
    const have = new Set(found);
    return [
      ...found.filter((row) => !want.has(row)).map((row) => `unexpected ${row}`),
      ...expected.filter((row) => !have.has(row)).map((row) => `missing ${row}`),
    ];
  }
}
