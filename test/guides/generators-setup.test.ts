import type { SqlExecutor } from '@sheaf/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { insertOrder, migrate, startIds } from '../../docs/guides/examples/generators/orders.js';
import { describeTargets } from '../support/database.js';
import { clean, IdTally, idSpaceReport } from '../support/id-space.js';

// docs/generators.md, whole: the database's default (trigger on MariaDB) and the application's
// SnowflakeGenerator and BatchedDbIds, all writing into one table. The `total` column marks the path.
const APP = 1;
const BATCHED = 2;
const DEFAULT = 3;
const DB_SHARD = 1;
const PROCESSES = 4;
const WRITERS = 4;
const ROWS = 250;

const rowsOf = async (executor: SqlExecutor) =>
  (await executor.query<{ id: string | bigint; total: number }>('select id, total from orders')).map((row) => ({
    id: row.id,
    byDatabase: Number(row.total) !== APP,
  }));

describeTargets('docs/generators.md setup: one table keyed by the database and the app generators', (db, target) => {
  let apps: Awaited<ReturnType<typeof startIds>>[] = [];

  beforeAll(async () => {
    await migrate(db().executor);
    // One after another: each process leases the lowest free worker id when it starts.
    for (let i = 0; i < PROCESSES; i++) apps.push(await startIds(db().executor));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  it(`${PROCESSES} processes (snowflake and batched ids) and ${WRITERS} writers (default) at once (PGlite: interleaved on its one connection): 0 collisions`, async () => {
    const tally = new IdTally();
    const writers = target === 'pglite' ? [db().executor] : await db().sessions(WRITERS);
    await Promise.all([
      ...apps.map((app) => {
        const ids = tally.record(app.snowflake.workerId, app.snowflake);
        return tally.repeat(ROWS, () => insertOrder(db().executor, APP, ids.next()));
      }),
      ...apps.map((app) =>
        tally.repeat(ROWS, async () => insertOrder(db().executor, BATCHED, await app.batched.next())),
      ),
      ...writers.map((writer) => tally.repeat(ROWS, () => insertOrder(writer, DEFAULT))),
    ]);
    expect(idSpaceReport(tally, await rowsOf(db().executor), DB_SHARD)).toEqual(clean(tally.attempted));
  });
});
