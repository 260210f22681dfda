import type { SnowflakeGenerator } from '@sheaf/core';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { placeOrder, startIds } from '../../docs/guides/examples/knex/app.js';
import { migrationSource } from '../../docs/guides/examples/knex/migrations.js';
import { describeTargets } from '../support/database.js';
import { clean, IdTally, idSpaceReport } from '../support/id-space.js';
import { connectKnex } from '../support/knex.js';

// docs/guides/knex.md, whole: the migrations (installSheaf on shard 4, sheafId columns), processes
// placing orders with ids from their own SnowflakeGenerator, and at the same time orders keyed by
// the database: insertWithIds without a source and plain multi-row inserts (default or trigger).
const DB_SHARD = 4;
// More processes than the database's shard: the lowest free worker ids reach it.
const PROCESSES = 6;
const ORDERS = 100;
const BATCH = 10;

interface App {
  knex: Knex;
  snowflake: SnowflakeGenerator;
}

describeTargets('docs/guides/knex.md setup: app ids and database ids in one table', (db, target) => {
  let k: Knex;
  const apps: App[] = [];

  beforeAll(async () => {
    k = await connectKnex(target, db().url);
    await k.migrate.latest({ migrationSource });
    for (let i = 0; i < PROCESSES; i++) {
      // PGlite is embedded in this process: its processes share the one knex.
      const own = target === 'pglite' ? k : await connectKnex(target, db().url);
      apps.push({ knex: own, snowflake: await startIds(own) });
    }
  });
  afterAll(async () => {
    for (const app of apps.splice(0)) {
      await app.snowflake.close();
      if (app.knex !== k) await app.knex.destroy();
    }
    await k?.destroy();
  });

  it(`${PROCESSES} processes with app ids, database-keyed orders and plain inserts at once (PGlite: interleaved): 0 collisions`, async () => {
    const tally = new IdTally();
    const placing = Promise.all(
      apps.map((app) => {
        const ids = tally.record(app.snowflake.workerId, app.snowflake);
        return tally.repeat(ORDERS, () => placeOrder(app.knex, 'app', ids));
      }),
    );
    const plain = Array.from({ length: BATCH }, () => ({ customer: 'plain' }));
    await Promise.all([
      placing,
      tally.during(placing, () => placeOrder(k, 'db')),
      tally.during(placing, () => k('orders').insert(plain), BATCH),
      tally.during(placing, () => k('orders').insert(plain), BATCH),
    ]);
    const rows = await k('orders').select('id', 'customer');
    const written = rows.map((row: { id: string; customer: string }) => ({
      id: row.id,
      byDatabase: row.customer !== 'app',
    }));
    expect(idSpaceReport(tally, written, DB_SHARD)).toEqual(clean(tally.attempted));
  });
});
