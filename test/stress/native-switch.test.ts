import { decodeId, install, type SqlExecutor } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeNative, expectGeneratorPath, nativePath, plpgsqlPath } from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, idsOf } from '../support/pg-clock.js';

// install() moves a database between PL/pgSQL and the C path in one transaction while other
// sessions take ids every way an application can (docs/native.md): no id twice, none of a shard the
// database does not issue, none behind one the same session took before.

const shard = 3;
const logical = 9;
const switches = 12;

/** What each worker asks, in turn, and the shard its ids must carry. */
const forms: [string, number][] = [
  ['select sheaf.next_id() as id from generate_series(1, 2000)', shard],
  [`select sheaf.next_id(${logical}) as id from generate_series(1, 500)`, logical],
  ['select sheaf.next_ids(10) as id from generate_series(1, 30)', shard],
  ['select sheaf.next_ids(3000) as id', shard],
  [`select sheaf.next_ids(700, ${logical}) as id`, logical],
  ['insert into switch_ids (n) select g from generate_series(1, 1000) g returning id', shard],
];

/** The shard field cleared: ids of one database share one counter, so this orders all of a session's ids. */
const withoutShard = (id: bigint) => id & ~(0xfffn << 10n);

describeNative('switching between PL/pgSQL and native under load', (db) => {
  beforeAll(async () => {
    await install(db().executor, { shard, native: false });
    await db().executor.query(`select sheaf.add_shard(${logical})`);
    await db().executor.query(
      'create unlogged table switch_ids (id bigint primary key default sheaf.next_id(), n int)',
    );
  });

  it(`8 sessions take ids every way while another switches paths ${switches} times: no duplicate`, async () => {
    const [switcher, ...workers] = (await db().sessions(9)) as [SqlExecutor, ...SqlExecutor[]];
    let switching = true;
    let bursts = 0;
    const work = workers.map(async (session, index) => {
      const ids: bigint[] = [];
      // One worker groups its statements in transactions that stay open across a switch.
      const inTransactions = index === 0;
      for (let round = 0; switching || round < forms.length; round++) {
        const [sql, wanted] = forms[(index + round) % forms.length]!;
        if (inTransactions && round % 3 === 0) await session.query('begin');
        // The server's clock as each row leaves: an id of a later millisecond was borrowed from the
        // future, as happens when more than 1,024 ids are asked within one millisecond.
        const rows = await session.query<{ id: unknown; now: string }>(
          `with t as (${sql}) select t.id, floor(extract(epoch from clock_timestamp()) * 1000)::int8 as now from t`,
        );
        const taken = idsOf(rows);
        if (inTransactions && round % 3 === 2) await session.query('commit');
        const shards = new Set(taken.map((id) => decodeId(id).shardId));
        expect(shards, `session ${index}: ${sql}`).toEqual(new Set([wanted]));
        if (rows.some((row) => decodeId(BigInt(row.id as string)).ms > Number(row.now))) bursts++;
        ids.push(...taken);
      }
      if (inTransactions) await session.query('commit');
      return ids;
    });
    // A worker that fails ends the switching; its error is reported below, not as unhandled.
    let failed = false;
    for (const worker of work) {
      worker.catch(() => {
        failed = true;
      });
    }
    let native = false;
    try {
      for (let i = 0; i < switches && !failed; i++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        native = !native;
        await install(switcher, { native });
        await expectGeneratorPath(switcher, native ? nativePath : plpgsqlPath);
      }
    } finally {
      switching = false;
    }
    const perSession = await Promise.all(work);
    for (const [index, ids] of perSession.entries()) {
      expectIncreasing(ids.map(withoutShard), `session ${index}`);
    }
    const all = perSession.flat();
    const distinct = expectDistinct(all);
    expect(distinct).toBe(all.length);
    expect(bursts, 'statements that borrowed milliseconds ahead of the clock').toBeGreaterThan(0);
    const [stored] = await db().executor.query<{ n: number }>('select count(*)::int as n from switch_ids');
    console.info(
      `switching under load: ${all.length} ids over ${switches} switches, 0 duplicates, ` +
        `${bursts} statements borrowed milliseconds ahead of the clock, ${stored?.n} rows inserted`,
    );
  }, 300_000);
});
