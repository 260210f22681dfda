import { decodeId, install, isSheafError, type SqlExecutor } from '@sheaf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { expectGeneratorPath, nativePath, nativeUnavailableIn, plpgsqlPath } from '../support/generator-paths.js';
import { IdLedger } from '../support/id-ledger.js';
import { createPgDatabase, openPgDatabase, type PgDatabase } from '../support/pg-database.js';
import { createScratchCluster, postgresBinDir, type ScratchCluster } from '../support/scratch-cluster.js';
import { createStandby } from '../support/scratch-standby.js';
import { selectedTargets } from '../support/targets.js';

const bin = postgresBinDir();
const runnable = selectedTargets().includes('postgres') && bin !== undefined;
// Scratch clusters run the machine's binaries: the native path runs where the extension is installed for them.
const nativeSkipped = bin === undefined ? undefined : nativeUnavailableIn(bin);
if (runnable && nativeSkipped) it.skip(`failover to an async standby [native]: ${nativeSkipped}`);
const paths = nativeSkipped ? [plpgsqlPath] : [plpgsqlPath, nativePath];

// The lead bound and the assumed skew between the old and the new primary's clocks
// (docs/sql/postgres.md): after a failover the first ids run at most their sum ahead of the clock.
const leadMs = 2_000;
const skewMs = 1_000;
const batches = 3;
const batchSize = 1_000_000;

const scenarios = [
  { name: 'streaming until the primary dies', lagging: false },
  { name: 'disconnected before the last ids', lagging: true },
];

/**
 * Takes ids on the primary the way clients are handed them, each recorded once acknowledged:
 * durable batches on several sessions at once, which reserve ids faster than the clock moves
 * (1,024 per millisecond) and so run ahead of it, then bursts of plain `select sheaf.next_id()`,
 * the last right before the crash, whose state no commit has flushed. A batch that would run more
 * than the lead bound ahead waits for the clock, at most 2 s, then is refused (GENERATOR_BUSY):
 * nothing of it was handed out. Returns how many batches were refused.
 */
async function takeAcknowledged(sql: SqlExecutor, ledger: IdLedger): Promise<number> {
  const refused = await Promise.all(
    Array.from({ length: batches }, async (): Promise<number> => {
      try {
        const [run] = await sql.query<{ first: string; last: string; n: number }>(
          'select min(id)::text as first, max(id)::text as last, count(*)::int as n from sheaf.next_ids_durable($1) id',
          [batchSize],
        );
        ledger.addRun(BigInt(run!.first), BigInt(run!.last), run!.n);
        return 0;
      } catch (error) {
        if (isSheafError(error, 'GENERATOR_BUSY')) return 1;
        throw error;
      }
    }),
  );
  const [burst] = await sql.query<{ ids: string }>(
    "select string_agg(sheaf.next_id()::text, ',') as ids from generate_series(1, 5000)",
  );
  ledger.addList(burst!.ids);
  for (let single = 0; single < 20; single++) {
    const [row] = await sql.query<{ id: string }>('select sheaf.next_id()::text as id');
    ledger.add(BigInt(row!.id));
  }
  return refused.reduce((sum, one) => sum + one, 0);
}

// kill -9 of a primary and `pg_ctl promote` of its asynchronous standby: the standby has the
// primary's WAL up to some point (all that was sent, or less when it was cut off), never the state
// of the ids handed out since. The new primary must not hand any of them out again.
describe.skipIf(!runnable).each(paths)('failover to an async standby [scratch clusters, $name]', (path) => {
  const clusters: ScratchCluster[] = [];
  const pools: PgDatabase[] = [];

  // Clusters first: a pool's end waits for a statement still running.
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) cluster.destroy();
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it.each(scenarios)(
    'the promoted standby reissues no id the old primary acknowledged ($name)',
    { timeout: 120_000 },
    async ({ lagging }) => {
      const primary = await createScratchCluster();
      clusters.push(primary);
      const app = await createPgDatabase(primary.url, 'app');
      pools.push(app);
      await install(app.executor, { shard: 1, ...path.install('postgres') });
      await expectGeneratorPath(app.executor, path);
      const standby = await createStandby(primary);
      clusters.push(standby);
      const acknowledged = new IdLedger();
      const [warm] = await app.executor.query<{ ids: string }>(
        "select string_agg(sheaf.next_id()::text, ',') as ids from generate_series(1, 1000)",
      );
      acknowledged.addList(warm!.ids);
      await standby.caughtUp();
      if (lagging) standby.stop();
      const refused = await takeAcknowledged(app.executor, acknowledged);
      expect(refused, 'durable batches refused').toBeLessThan(batches);
      const leadAtCrash = decodeId(acknowledged.max!).ms - Date.now();
      primary.crash();
      await app.close();
      if (lagging) standby.start();
      standby.promote();

      const promoted = openPgDatabase(standby.urlOf('app'));
      pools.push(promoted);
      const [clock] = await promoted.executor.query<{ ms: string }>(
        'select floor(extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms',
      );
      const rows = await promoted.executor.query<{ id: string }>(
        'select sheaf.next_id()::text as id from generate_series(1, 10000)',
      );
      const after = rows.map((row) => BigInt(row.id));
      const aheadMs = decodeId(after[0]!).ms - Number(clock!.ms);
      console.info(
        `${path.name}, ${lagging ? 'lagging' : 'streaming'} standby: ${acknowledged.count} ids acknowledged ` +
          `(${refused} of ${batches} batches refused for the lead bound) ` +
          `(the last ${leadAtCrash} ms ahead of the clock at the crash); the first id after the promotion is ` +
          `${aheadMs} ms ahead of the clock`,
      );
      const reissued = acknowledged.found(after);
      expect(reissued.length, `reissued, first: ${reissued.slice(0, 3).join(', ')}`).toBe(0);
      expect(after.every((id) => decodeId(id).shardId === 1)).toBe(true);
      expect(aheadMs).toBeLessThanOrEqual(leadMs + skewMs + 500);
    },
  );
});
