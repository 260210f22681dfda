import { decodeId, install, layoutByName, SnowflakeGenerator, type SnowflakeGeneratorOptions } from '@sheaf/core';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeTargets, type TestDatabase } from '../support/database.js';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';
import { clearWorkers, lockWorker, workerRow } from '../support/generator-sql.js';
import { countingClock, sleep, steppedClock, until } from '../support/test-clock.js';

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
    time.step(-3);
    const waitStarted = performance.now();
    const after = generator.next();
    expect(performance.now() - waitStarted).toBeGreaterThanOrEqual(1);
    expect(after > before).toBe(true);
    expect(decodeId(after).ms).toBeGreaterThanOrEqual(decodeId(before).ms);
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

  it('refuses bad options', async () => {
    await expectSheafRejection(start({ leaseMs: 1000, heartbeatMs: 5000 }), 'INVALID_ARGUMENT', 'heartbeatMs');
    await expectSheafRejection(start({ maxWorker: 4096 }), 'INVALID_ARGUMENT', 'maxWorker');
    await expectSheafRejection(start({ layout: 'nope' as 'sheaf' }), 'INVALID_LAYOUT');
  });
});
