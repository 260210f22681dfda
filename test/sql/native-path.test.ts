import { decodeId, install, isSheafError, type SqlExecutor, uninstall } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { postgresNativePath } from '../../packages/core/src/install/native-path.js';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import {
  describeNative,
  expectGeneratorPath,
  nativePath,
  plpgsqlPath,
  takeIds as take,
} from '../support/generator-paths.js';
import { expectDistinct, expectIncreasing, pgClock } from '../support/pg-clock.js';

// The choice between PL/pgSQL and the C extension sheaf_native (docs/native.md): how install()
// makes and keeps it, and that the native path behaves as PL/pgSQL does where a caller can tell.
// Sessions beside a switch: native-path-sessions.test.ts; privileges: postgres-native-privileges.test.ts.

/** The path as the catalog records it: the choice, the extension, the body next_id() calls. */
async function pathState(sql: SqlExecutor): Promise<{ chosen: boolean | null; extension: boolean; body: string }> {
  const [row] = await sql.query<{ chosen: boolean | null; extension: boolean; body: string }>(
    `select (select native from sheaf.settings) as chosen,
       exists (select from pg_extension where extname = 'sheaf_native') as extension,
       case when pg_get_functiondef('sheaf.next_id()'::regprocedure) like '%_native_next_id()%'
           or (select p.prosrc from pg_proc p where p.oid = 'sheaf.next_id()'::regprocedure) = 'sheaf_native_next_id'
         then 'native' else 'plpgsql' end as body`,
  );
  return row!;
}

const native = { chosen: true, extension: true, body: 'native' };
const plpgsql = { chosen: false, extension: false, body: 'plpgsql' };

/** A refusal as a caller sees it: SheafError code, message and the server's SQLSTATE. */
async function refusalOf(promise: Promise<unknown>): Promise<{ code: string; message: string; sqlstate: unknown }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isSheafError(error)) throw new Error(`expected a SheafError, got ${String(error)}`);
  return { code: error.code, message: error.message, sqlstate: (error.cause as { code?: unknown })?.code };
}

describeNative('install({ native })', (db) => {
  const sql = () => db().executor;

  it('chooses native on a fresh install where it can run, and keeps the recorded choice', async () => {
    await install(sql());
    expect(await pathState(sql())).toEqual(native);
    await install(sql());
    await install(sql(), { shard: 2 });
    await sql().query('select sheaf.configure(3)');
    expect(await pathState(sql())).toEqual(native);
    await install(sql(), { native: false });
    expect(await pathState(sql())).toEqual(plpgsql);
    await expectGeneratorPath(sql(), plpgsqlPath);
    // Re-runs without the option (an app's start-up install) keep PL/pgSQL, whatever else changes.
    await install(sql());
    await install(sql(), { shard: 4 });
    expect(await pathState(sql())).toEqual(plpgsql);
    await install(sql(), { native: true });
    expect(await pathState(sql())).toEqual(native);
    await expectGeneratorPath(sql(), nativePath);
    expect(decodeId((await take(sql(), 1))[0]!).shardId).toBe(4);
    // Nobody chose on a database installed anew: native again.
    await uninstall(sql());
    await install(sql(), { shard: 4 });
    expect(await pathState(sql())).toEqual(native);
  });

  it('refuses to drop the extension while native is chosen; uninstall removes it', async () => {
    await install(sql(), { native: true });
    const error = await sql()
      .query('drop extension sheaf_native')
      .catch((caught: unknown) => caught);
    const code = (error as { code?: string; cause?: { code?: string } }).code;
    expect([code, (error as { cause?: { code?: string } }).cause?.code]).toContain('2BP01');
    expect(await pathState(sql())).toEqual(native);
    await sql().query('create table orders (id bigint primary key default sheaf.next_id(), n integer)');
    await sql().query('insert into orders (n) values (1)');
    await expectSheafRejection(uninstall(sql()), 'IN_USE', 'orders');
    await uninstall(sql(), { force: true });
    const [left] = await sql().query<{ schema: boolean; extension: boolean }>(
      `select to_regnamespace('sheaf') is not null as schema,
           exists (select from pg_extension where extname = 'sheaf_native') as extension`,
    );
    expect(left).toEqual({ schema: false, extension: false });
    await sql().query('drop table orders');
  });

  it('refuses native: true with upTo below the native file, leaving nothing installed', async () => {
    const before = postgresNativePath.from - 1;
    await expectSheafRejection(
      install(sql(), { upTo: before, native: true }),
      'NATIVE_UNAVAILABLE',
      `version ${postgresNativePath.from}`,
      `stops at ${before}`,
    );
    const [row] = await sql().query<{ schema: boolean }>("select to_regnamespace('sheaf') is not null as schema");
    expect(row?.schema).toBe(false);
    // native: false below the native file is simply nothing to do.
    await install(sql(), { upTo: before, native: false });
    await install(sql());
    expect(await pathState(sql())).toEqual(native);
  });

  it('gives next_id(shard) the same SH001 and SH015 refusals, code and message, on both paths', async () => {
    await install(sql(), { shard: 5, native: false });
    await sql().query('select sheaf.add_shard(9), sheaf.add_shard(11)');
    const calls = ['-1', '4096', '2147483647', 'null', '6', '0', '4095'].map(
      (shard) => `select sheaf.next_id(${shard})`,
    );
    const refusals = async () => {
      const connection = await db().connect();
      try {
        const seen = [];
        // A new backend (settings loaded by this very call) and the same backend again.
        for (const call of [...calls, ...calls]) seen.push(await refusalOf(connection.executor.query(call)));
        return seen;
      } finally {
        await connection.close();
      }
    };
    const fromPlpgsql = await refusals();
    await install(sql(), { native: true });
    const fromNative = await refusals();
    expect(fromNative).toEqual(fromPlpgsql);
    const codes = [...Array(4).fill('SHARD_OUT_OF_RANGE'), ...Array(3).fill('SHARD_NOT_OWNED')];
    expect(fromPlpgsql.map((refusal) => refusal.code)).toEqual([...codes, ...codes]);
    expect(new Set(fromPlpgsql.map((refusal) => refusal.sqlstate))).toEqual(new Set(['SH001', 'SH015']));
    expect(fromPlpgsql[4]?.message).toContain('shard 5, logical shards 9, 11');
  });

  it('an open session takes a shard added after it cached the settings, and refuses it as before', async () => {
    await install(sql(), { shard: 5, native: true });
    const connection = await db().connect();
    try {
      const session = connection.executor;
      await take(session, 3, 'sheaf.next_id(9)');
      await expectSheafRejection(session.query('select sheaf.next_id(12)'), 'SHARD_NOT_OWNED', 'shard 12');
      await sql().query('select sheaf.add_shard(12)');
      const ids = await take(session, 2000, 'sheaf.next_id(12)');
      expect(new Set(ids.map((id) => decodeId(id).shardId))).toEqual(new Set([12]));
    } finally {
      await connection.close();
    }
  });
});

// The refusals where there is no native path at all.
describeTargets(
  'install({ native: true }) without the extension',
  (db, target) => {
    it('is refused with NATIVE_UNAVAILABLE, and native: false or nothing installs PL/pgSQL', async () => {
      const sql = db().executor;
      const fragment = target === 'mariadb' ? 'PostgreSQL only' : 'not installed on this PostgreSQL server';
      await expectSheafRejection(install(sql, { native: true }), 'NATIVE_UNAVAILABLE', fragment);
      await install(sql, { native: false });
      await install(sql);
      await expectSheafRejection(install(sql, { native: true }), 'NATIVE_UNAVAILABLE', fragment);
      if (target === 'pglite') {
        expect(await pathState(sql)).toEqual(plpgsql);
      }
      const [row] = await sql.query<{ id: unknown }>(
        target === 'mariadb' ? 'select sheaf_next_id() as id' : 'select sheaf.next_id() as id',
      );
      expect(BigInt(row!.id as string)).toBeGreaterThan(0n);
    });
  },
  { only: ['pglite', 'mariadb'] },
);

// The test clock drives both paths alike: the same script gives the same ids, relative to it.
describeNative('the test clock on both paths', (db) => {
  const sql = () => db().executor;
  beforeAll(async () => {
    await install(sql(), { shard: 6, testClock: true, native: false });
    await sql().query('select sheaf.add_shard(9)');
  });

  /** Runs one scripted clock on a fresh session; returns every id relative to `base`, and each refusal. */
  async function script(base: number): Promise<unknown[]> {
    const connection = await db().connect();
    const session = connection.executor;
    const seen: unknown[] = [];
    const step = async (clock: number | null, offset: number, count: number, fn = 'sheaf.next_id()') => {
      await pgClock.set(session, clock);
      await pgClock.offset(session, offset);
      const ids = await take(session, count, fn).catch(async (error: unknown) => {
        const refusal = await refusalOf(Promise.reject(error));
        seen.push(refusal);
        return [];
      });
      seen.push(ids.map((id) => [decodeId(id).ms - base, decodeId(id).shardId, decodeId(id).sequence]));
      return ids;
    };
    try {
      await pgClock.set(session, base);
      await session.query('select sheaf._test_reset()');
      const all: bigint[] = [];
      all.push(...(await step(base, 0, 1500)));
      all.push(...(await step(base, 0, 10, 'sheaf.next_id(9)')));
      all.push(...(await step(base + 5, 0, 100)));
      all.push(...(await step(base + 10, 7, 5)));
      // Backwards 5 s: ids continue from the last one issued, their time stays at the last block.
      const last = all.at(-1)!;
      const back = await step(base - 5000, 0, 1200);
      expect(back[0]! > last).toBe(true);
      expect(decodeId(back[0]!).ms).toBeGreaterThanOrEqual(decodeId(last).ms);
      all.push(...back);
      all.push(...(await step(base + 10, -5010, 2100, 'sheaf.next_id(9)')));
      expectIncreasing(all.map((id) => id & ~(0xfffn << 10n)));
      expectDistinct(all.map((id) => id & ~(0xfffn << 10n)));
      // A clock before the epoch: the open block's ids, then SH004 where a block must open.
      await step(Date.parse('2023-06-01T00:00:00Z'), 0, 3);
      await step(Date.parse('2023-06-01T00:00:00Z'), 0, 3000);
      // A clock past the end of the layout.
      await step(Date.parse('2093-09-06T15:47:35.552Z'), 0, 1);
      return seen;
    } finally {
      await connection.close();
    }
  }

  it('a frozen, stepped and offset clock gives the same ids on native as on PL/pgSQL', async () => {
    const base = Date.now() + 60_000;
    const fromPlpgsql = await script(base);
    await install(sql(), { native: true });
    await expectGeneratorPath(sql(), nativePath);
    const fromNative = await script(base);
    expect(fromNative).toEqual(fromPlpgsql);
    const refusals = fromPlpgsql.filter((entry) => !Array.isArray(entry));
    expect(refusals).toEqual([
      expect.objectContaining({ code: 'TIME_BEFORE_EPOCH' }),
      expect.objectContaining({ code: 'TIME_EXHAUSTED' }),
    ]);
  });

  for (const path of [plpgsqlPath, nativePath]) {
    it(`ids after _test_reset stay unique for a session that saw a block ahead of it [${path.name}]`, async () => {
      await install(sql(), path.install('postgres'));
      const [ahead, other, reset] = (await db().sessions(3)) as [SqlExecutor, SqlExecutor, SqlExecutor];
      try {
        // `ahead` opens a block a minute ahead and remembers it.
        await pgClock.offset(ahead, 60_000);
        await take(ahead, 1);
        const base = Date.now() + 10_000;
        for (const session of [ahead, other, reset]) {
          await pgClock.reset(session);
          await pgClock.set(session, base);
        }
        await reset.query('select sheaf._test_reset()');
        const first = await take(other, 1);
        // Runs 76 ids past the block `other` opened, before anyone opened the next one.
        const burst = await take(ahead, 1100);
        const next = await take(other, 5);
        expect(expectDistinct([...first, ...burst, ...next])).toBe(1106);
      } finally {
        for (const session of [ahead, other, reset]) await pgClock.reset(session);
      }
    });
  }
});
