import {
  decodeId,
  install,
  isSheafError,
  layoutByName,
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
  type SqlExecutor,
} from '@sheaf/core';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeTargets, type TestDatabase } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { clearWorkers, lockWorker, workerRow } from '../support/generator-sql.js';
import { countingClock, manualClock, sleep, steppedClock, until } from '../support/test-clock.js';

/**
 * The same database through a link the test can cut: afterwards every query fails as if the
 * process had lost its connection (or died, as far as the database can tell), until `restore()`.
 */
function cuttable(executor: SqlExecutor) {
  let cut = false;
  const linked: SqlExecutor = {
    dialect: executor.dialect,
    query: (sql, params) => (cut ? Promise.reject(new Error('link cut by the test')) : executor.query(sql, params)),
    session: (fn) => (cut ? Promise.reject(new Error('link cut by the test')) : executor.session(fn)),
  };
  return {
    executor: linked,
    cut: () => {
      cut = true;
    },
    restore: () => {
      cut = false;
    },
  };
}

/** Whether `next()` issues an id now (the id goes to `into`). */
function issues(generator: SnowflakeGenerator, into: bigint[] = []): boolean {
  try {
    into.push(generator.next());
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes the workers table unresponsive for `workerId` until the returned function is called: a row
 * lock held by another session on a server, the single connection held by a session on PGlite.
 */
async function stall(db: TestDatabase, workerId: number): Promise<() => Promise<void>> {
  if (db.target === 'pglite') {
    let resume!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const session = db.executor.session(
      () =>
        new Promise<void>((resolve) => {
          resume = resolve;
          entered();
        }),
    );
    await inside;
    return async () => {
      resume();
      await session;
    };
  }
  const connection = await db.connect();
  await lockWorker(connection.executor, workerId);
  return async () => {
    await connection.executor.query('commit');
    await connection.close();
  };
}

describeTargets('SnowflakeGenerator', (db) => {
  const sql = () => db().executor;
  const open: SnowflakeGenerator<'bigint' | 'number'>[] = [];
  const start = async <K extends 'bigint' | 'number' = 'bigint'>(options: SnowflakeGeneratorOptions<K> = {}) => {
    const generator = await SnowflakeGenerator.start<K>(sql(), { heartbeatMs: 500, ...options });
    open.push(generator as SnowflakeGenerator<'bigint' | 'number'>);
    return generator;
  };

  beforeAll(async () => {
    await install(sql());
  });
  beforeEach(async () => {
    await clearWorkers(sql());
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((generator) => generator.close()));
  });

  it('leases the lowest free worker ids; ids carry the worker id, increase, never repeat; close() releases', async () => {
    const generators = [await start(), await start(), await start()];
    expect(generators.map((generator) => generator.workerId)).toEqual([0, 1, 2]);
    const seen = new Set<bigint>();
    const last = [0n, 0n, 0n];
    for (let i = 0; i < 30_000; i++) {
      const index = i % 3;
      const id = generators[index]!.next();
      expect(id > last[index]!).toBe(true);
      last[index] = id;
      seen.add(id);
    }
    expect(seen.size).toBe(30_000);
    for (const [index, generator] of generators.entries()) {
      expect(decodeId(last[index]!).shardId).toBe(generator.workerId);
    }
    await generators[1]!.close();
    const row = await workerRow(sql(), 1);
    expect(row.holder).toBeNull();
    expect(row.lastTimestampMs).toBeGreaterThanOrEqual(decodeId(last[1]!).ms);
    expectSheafError(() => generators[1]!.next(), 'GENERATOR_CLOSED', 'worker 1');
    expect((await start()).workerId).toBe(1);
  });

  it('records its clock with every heartbeat', async () => {
    const generator = await start({ heartbeatMs: 50 });
    const id = generator.next();
    await sleep(200);
    expect((await workerRow(sql(), generator.workerId)).lastTimestampMs).toBeGreaterThan(decodeId(id).ms);
    expect(generator.stats()).toMatchObject({ workerId: 0, heartbeatFailures: 0, stopped: undefined });
    expect(generator.stats().leaseLeftMs).toBeGreaterThan(20_000);
  });

  it('gives WORKERS_EXHAUSTED when every worker id is leased', async () => {
    const held = [await start({ maxWorker: 1 }), await start({ maxWorker: 1 })];
    await expectSheafRejection(start({ maxWorker: 1 }), 'WORKERS_EXHAUSTED', 'all 2 worker ids from 0 to 1 are leased');
    await held[0]!.close();
    expect((await start({ maxWorker: 1 })).workerId).toBe(0);
  });

  it('uses the worker id as the shard field of any layout, in Number mode where ids fit 2^53', async () => {
    const twitter = await start({ layout: 'twitter' });
    expect(decodeId(twitter.next(), layoutByName('twitter')).shardId).toBe(twitter.workerId);
    const small = await start({ layout: 'js53', ids: 'number' });
    const id = small.next();
    expect(typeof id).toBe('number');
    expect(decodeId(id, layoutByName('js53')).shardId).toBe(small.workerId);
    await expectSheafRejection(start({ layout: 'sheaf', ids: 'number' }), 'INVALID_ARGUMENT', 'below 2^53');
  });

  it('waits for the next millisecond when the sequence is used up', async () => {
    // 10,000 clock reads per millisecond: far more calls than 4,096 ids fit, on any machine.
    const generator = await start({ layout: 'twitter', clock: countingClock(10_000) });
    const layout = layoutByName('twitter');
    const ids = Array.from({ length: 20_000 }, () => generator.next());
    const perMs = new Map<number, number>();
    for (const [i, id] of ids.entries()) {
      if (i > 0 && id <= ids[i - 1]!) throw new Error(`id #${i} ${id} is not above ${ids[i - 1]}`);
      const { ms } = decodeId(id, layout);
      perMs.set(ms, (perMs.get(ms) ?? 0) + 1);
    }
    // Every millisecond but the last is full, none holds more than the sequence allows.
    expect([...perMs.values()].slice(0, -1).every((count) => count === 4096)).toBe(true);
    expect(Math.max(...perMs.values())).toBe(4096);
  });

  it('waits out a 3 ms backwards step and throws CLOCK_MOVED_BACKWARDS on a 1 s step', async () => {
    const time = steppedClock();
    const generator = await start({ clock: time.clock });
    const before = generator.next();
    const lastMs = decodeId(before).ms;
    // 3 ms behind the last id's millisecond, wherever the clock got to meanwhile (a busy machine).
    time.step(lastMs - 3 - time.clock.now());
    const behindMs = lastMs - time.clock.now();
    const waitStarted = performance.now();
    const after = generator.next();
    // It returned only once the clock was back at the last id's millisecond, having waited for it.
    expect(time.clock.now()).toBeGreaterThanOrEqual(lastMs);
    expect(performance.now() - waitStarted).toBeGreaterThanOrEqual(behindMs - 1);
    expect(after > before).toBe(true);
    expect(decodeId(after).ms).toBeGreaterThanOrEqual(lastMs);
    time.step(-1000);
    expectSheafError(() => generator.next(), 'CLOCK_MOVED_BACKWARDS', 'moved backwards by', 'maxBackwardsMs 5');
    time.step(1000);
    expect(generator.next() > after).toBe(true);
    const strict = await start({ clock: time.clock, maxBackwardsMs: 0 });
    strict.next();
    time.step(-3);
    expectSheafError(() => strict.next(), 'CLOCK_MOVED_BACKWARDS', 'maxBackwardsMs 0');
  });

  it('refuses to start on a worker id last used at a time ahead of its clock (CLOCK_BEHIND_WORKER)', async () => {
    const ahead = await start({ clock: steppedClock(60_000).clock });
    const id = ahead.next();
    await ahead.close();
    await expectSheafRejection(start(), 'CLOCK_BEHIND_WORKER', 'worker 0 was last used at', 'refusing to start');
    expect((await workerRow(sql(), 0)).holder).toBeNull();
    const later = await start({ clock: steppedClock(61_000).clock });
    expect(later.workerId).toBe(0);
    expect(later.next() > id).toBe(true);
  });

  it('stops issuing before its lease can expire when heartbeats cannot get through; a takeover never overlaps', async () => {
    const settings = { leaseMs: 1500, heartbeatMs: 100, safetyMarginMs: 300 };
    const first = await start(settings);
    const fromFirst = [first.next()];
    await sleep(150);
    const resume = await stall(db(), first.workerId);
    const stalledAt = performance.now();
    let fenced: unknown;
    let lastIssuedAt = stalledAt;
    while (fenced === undefined) {
      try {
        fromFirst.push(first.next());
        lastIssuedAt = performance.now();
        await sleep(5);
      } catch (error) {
        fenced = error;
      }
    }
    // The deadline is the last renewal sent + lease − margin, and that renewal was sent before the stall.
    expect(lastIssuedAt - stalledAt).toBeLessThanOrEqual(1500 - 300);
    expect(fromFirst.length).toBeGreaterThan(50);
    expectSheafError(
      () => {
        throw fenced;
      },
      'LEASE_EXPIRED',
      `worker ${first.workerId}: no heartbeat went through in time`,
    );
    await sleep(1500);
    await resume();
    const second = await start(settings);
    expect(second.workerId).toBe(first.workerId);
    await until(() => first.stats().stopped !== undefined, 5000, 'the refused heartbeat');
    expectSheafError(() => first.next(), 'LEASE_LOST', `worker ${first.workerId}`);
    const fromSecond = Array.from({ length: 5000 }, () => second.next());
    const lastOfFirst = fromFirst[fromFirst.length - 1]!;
    expect(fromSecond.every((id) => id > lastOfFirst)).toBe(true);
    expect(decodeId(fromSecond[0]!).ms).toBeGreaterThan(decodeId(lastOfFirst).ms);
  });

  /** Starts on worker 0 as soon as its lease expires (the others being free). */
  const takeOver = async (options: SnowflakeGeneratorOptions = {}) => {
    for (;;) {
      try {
        return await start({ ...options, maxWorker: 0 });
      } catch (error) {
        if (!isSheafError(error, 'WORKERS_EXHAUSTED')) throw error;
        await sleep(20);
      }
    }
  };

  it('a clock jump past the lease after the last heartbeat, then a crash: the successor repeats no id', async () => {
    const settings = { leaseMs: 1000, heartbeatMs: 100, safetyMarginMs: 100 };
    const time = steppedClock();
    const link = cuttable(sql());
    const first = await SnowflakeGenerator.start(link.executor, { ...settings, clock: time.clock, maxWorker: 0 });
    open.push(first);
    const fromFirst = Array.from({ length: 2000 }, () => first.next());
    await sleep(150);
    // From the database's view the holder is gone: no heartbeat nor release gets through any more.
    link.cut();
    time.step(1500);
    const errors: unknown[] = [];
    for (const stopAt = performance.now() + 20; performance.now() < stopAt; ) {
      try {
        fromFirst.push(first.next());
      } catch (error) {
        errors.push(error);
      }
    }
    const recorded = (await workerRow(sql(), 0)).lastTimestampMs;
    const second = await takeOver(settings);
    const lastOfFirst = Math.max(...fromFirst.map((id) => decodeId(id).ms));
    // The successor's clock is the real one: it goes on until it is past every id of the first.
    const fromSecond: bigint[] = [];
    do {
      for (let i = 0; i < 200; i++) fromSecond.push(second.next());
      await new Promise((resolve) => setImmediate(resolve));
    } while (Date.now() <= lastOfFirst + 1);
    const firstIds = new Set(fromFirst);
    expect(fromSecond.filter((id) => firstIds.has(id))).toEqual([]);
    // It stopped at the jump: every id it issued lies within the bound it recorded, below the successor's.
    expect(lastOfFirst).toBeLessThanOrEqual(recorded);
    expect(decodeId(fromSecond[0]!).ms).toBeGreaterThan(recorded);
    expect(errors.length).toBeGreaterThan(0);
    expectSheafError(
      () => {
        throw errors[0];
      },
      'LEASE_EXPIRED',
      'past the bound the lease recorded',
    );
  });

  it('issues a forward jump only once a heartbeat recorded it; after a crash the successor waits or refuses', async () => {
    const settings = { leaseMs: 1000, heartbeatMs: 800, safetyMarginMs: 100 };
    const time = steppedClock();
    const link = cuttable(sql());
    const first = await SnowflakeGenerator.start(link.executor, { ...settings, clock: time.clock, maxWorker: 0 });
    open.push(first);
    const fromFirst = [first.next()];
    time.step(1500);
    expectSheafError(() => first.next(), 'LEASE_EXPIRED', 'worker 0: the clock', 'past the bound');
    // The refusal asks for a heartbeat at once rather than at the end of the period.
    const refusedAt = performance.now();
    await until(() => issues(first, fromFirst), 2000, 'a heartbeat recording the jump');
    expect(performance.now() - refusedAt).toBeLessThan(400);
    for (let i = 0; i < 2000; i++) fromFirst.push(first.next());
    link.cut();
    const recorded = (await workerRow(sql(), 0)).lastTimestampMs;
    expect(recorded).toBeGreaterThanOrEqual(decodeId(fromFirst[fromFirst.length - 1]!).ms + 1000 - 50);
    // The lease expires about when the real clock reaches the bound less the jump (1500 ms).
    await expectSheafRejection(
      takeOver({ ...settings, maxStartWaitMs: 899 }),
      'CLOCK_BEHIND_WORKER',
      'maxStartWaitMs 899',
    );
    await sleep(recorded - Date.now() - 600);
    const second = await takeOver({ ...settings, maxStartWaitMs: 899 });
    expect(Date.now()).toBeGreaterThan(recorded);
    const fromSecond = Array.from({ length: 2000 }, () => second.next());
    expect(decodeId(fromSecond[0]!).ms).toBeGreaterThan(recorded);
    const firstIds = new Set(fromFirst);
    expect(fromSecond.filter((id) => firstIds.has(id))).toEqual([]);
  });

  it('stops at the bound its last heartbeat recorded while heartbeats fail; resumes once one goes through', async () => {
    const time = manualClock();
    const startMs = time.clock.now();
    const link = cuttable(sql());
    const generator = await SnowflakeGenerator.start(link.executor, { clock: time.clock, heartbeatMs: 50 });
    open.push(generator);
    const recorded = (await workerRow(sql(), generator.workerId)).lastTimestampMs;
    expect(recorded).toBe(startMs + 30_000);
    expect(decodeId(generator.next()).ms).toBe(startMs);
    link.cut();
    await until(() => generator.stats().heartbeatFailures > 0, 2000, 'a failed heartbeat');
    time.advance(30_000);
    expect(decodeId(generator.next()).ms).toBe(recorded);
    time.advance(1);
    expectSheafError(
      () => generator.next(),
      'LEASE_EXPIRED',
      `worker ${generator.workerId}: the clock`,
      'past the bound',
    );
    link.restore();
    await until(() => issues(generator), 2000, 'a heartbeat recording a later bound');
    expect((await workerRow(sql(), generator.workerId)).lastTimestampMs).toBe(recorded + 1 + 30_000);
  });

  it('checks the deadline inside a millisecond too: a stalled wall clock cannot carry it past', async () => {
    const time = manualClock();
    const link = cuttable(sql());
    const generator = await SnowflakeGenerator.start(link.executor, {
      clock: time.clock,
      leaseMs: 300,
      heartbeatMs: 50,
      safetyMarginMs: 30,
    });
    open.push(generator);
    generator.next();
    link.cut();
    await until(() => generator.stats().leaseLeftMs < 0, 2000, 'the deadline');
    let issued = 0;
    let stoppedBy: unknown;
    while (stoppedBy === undefined && issued < 1024) {
      try {
        generator.next();
        issued++;
      } catch (error) {
        stoppedBy = error;
      }
    }
    expect(issued).toBeLessThanOrEqual(256);
    expectSheafError(
      () => {
        throw stoppedBy;
      },
      'LEASE_EXPIRED',
      'no heartbeat went through in time',
    );
  });

  it('close() records the last millisecond issued, not the bound: a restart on the worker id starts at once', async () => {
    const first = await start();
    expect((await workerRow(sql(), first.workerId)).lastTimestampMs).toBeGreaterThan(Date.now() + 29_000);
    const ids = Array.from({ length: 3000 }, () => first.next());
    const last = ids[ids.length - 1]!;
    await first.close();
    expect((await workerRow(sql(), first.workerId)).lastTimestampMs).toBe(decodeId(last).ms);
    const startedAt = performance.now();
    const again = await start();
    // Had close() recorded the bound, the restart would wait it out: 29 s and more.
    expect(performance.now() - startedAt).toBeLessThan(10_000);
    expect(again.workerId).toBe(first.workerId);
    expect(again.next() > last).toBe(true);
  });

  it('refuses a safety margin below 5 ms and a start wait the lease cannot cover', async () => {
    await expectSheafRejection(
      start({ safetyMarginMs: 0 }),
      'INVALID_ARGUMENT',
      'safetyMarginMs must be an integer from 5 to 29999, not 0',
    );
    await expectSheafRejection(start({ safetyMarginMs: 4 }), 'INVALID_ARGUMENT', 'from 5', 'not 4');
    await expectSheafRejection(
      start({ leaseMs: 1000, safetyMarginMs: 100, maxStartWaitMs: 900 }),
      'INVALID_ARGUMENT',
      'maxStartWaitMs must be an integer from 0 to 899, not 900',
    );
    expect((await start({ safetyMarginMs: 5 })).workerId).toBe(0);
  });

  it('refuses bad options', async () => {
    await expectSheafRejection(start({ leaseMs: 1000, heartbeatMs: 5000 }), 'INVALID_ARGUMENT', 'heartbeatMs');
    await expectSheafRejection(start({ maxWorker: 4096 }), 'INVALID_ARGUMENT', 'maxWorker');
    await expectSheafRejection(start({ layout: 'nope' as 'sheaf' }), 'INVALID_LAYOUT');
  });
});
