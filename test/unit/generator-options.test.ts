// Wrong-shaped options of the generators (issue 12): refused up front with a SheafError naming the
// option and the value, before any query. The executor is a real pg pool that is never connected:
// a refusal that regressed would try to connect to port 1 and fail with a driver error instead.
import {
  BatchedDbIds,
  pgExecutor,
  presets,
  SegmentGenerator,
  type SheafErrorCode,
  SnowflakeGenerator,
  TicketClient,
} from '@sheaf/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSheafError, expectSheafRejection } from '../support/expect-sheaf-error.js';

const pool = new pg.Pool({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
const executor = pgExecutor(pool);
afterAll(() => pool.end());

type Case = [what: string, options: unknown, code: SheafErrorCode, fragment: string];

/** Options every generator reads the same way. */
const common: Case[] = [
  ['null options', null, 'INVALID_ARGUMENT', 'options null are not an object'],
  ['options as text', 'orders', 'INVALID_ARGUMENT', 'options "orders" are not an object'],
  ['ids: null', { ids: null }, 'INVALID_ARGUMENT', "ids must be 'number' or 'bigint', not null"],
  ['ids: a type name', { ids: 'string' }, 'INVALID_ARGUMENT', `ids must be 'number' or 'bigint', not "string"`],
  ['a clock without functions', { clock: {} }, 'INVALID_ARGUMENT', 'clock an object has no now() and monotonic()'],
  ['a null clock', { clock: null }, 'INVALID_ARGUMENT', 'clock null has no now()'],
  ['retry as a number', { retry: 5 }, 'INVALID_ARGUMENT', 'retry options 5 are not an object'],
  ['retry.minMs as text', { retry: { minMs: '100' } }, 'INVALID_ARGUMENT', 'retry.minMs must be an integer'],
  ['a timeout as a bigint', { queryTimeoutMs: 10n }, 'INVALID_ARGUMENT', 'queryTimeoutMs must be an integer'],
];

/** `options` merged into valid ones, unless they are not an object at all. */
function withValid(valid: object, options: unknown): unknown {
  return typeof options === 'object' && options !== null ? { ...valid, ...options } : options;
}

describe('SnowflakeGenerator.start', () => {
  const cases: Case[] = [
    ...common.filter(([what]) => !what.startsWith('retry') && what !== 'a timeout as a bigint'),
    ['a null layout', { layout: null }, 'INVALID_LAYOUT', 'layout null is not a layout'],
    ['an empty layout', { layout: {} }, 'INVALID_LAYOUT', 'timeBits undefined'],
    ['an unknown preset', { layout: 'snowflake' }, 'INVALID_LAYOUT', 'layout "snowflake" is not a preset'],
    ['an inherited name', { layout: 'toString' }, 'INVALID_LAYOUT', 'layout "toString" is not a preset'],
    ['a stale layout copy', { layout: { ...presets.sheaf, shardBits: 8 } }, 'INVALID_LAYOUT', 'maxShard 4095'],
    ['lease as text', { leaseMs: '30000' }, 'INVALID_ARGUMENT', 'leaseMs must be an integer from 100'],
    ['a NaN maxWorker', { maxWorker: Number.NaN }, 'INVALID_ARGUMENT', 'maxWorker must be an integer'],
    ['an empty holder', { holder: '' }, 'INVALID_ARGUMENT', 'holder must be text of 1 to 255 characters, not ""'],
    ['a numeric holder', { holder: 7 }, 'INVALID_ARGUMENT', 'holder must be text of 1 to 255 characters, not 7'],
  ];

  it.each(cases)('refuses %s', async (_what, options, code, fragment) => {
    await expectSheafRejection(SnowflakeGenerator.start(executor, options as never), code, fragment);
  });

  it.each([
    ['null', null],
    ['an empty object', {}],
    ['a function', () => undefined],
  ])('refuses a database that is not one: %s', async (_what, notDatabase) => {
    await expectSheafRejection(
      SnowflakeGenerator.start(notDatabase as never),
      'INVALID_ARGUMENT',
      'SnowflakeGenerator.start needs a database: a pg Pool or Client, a mysql2 or mariadb pool or connection',
    );
  });
});

describe('new SnowflakeGenerator(…) from JavaScript', () => {
  // The constructor is private in TypeScript only: JavaScript callers reach it, and it must not
  // build a generator without the lease start() takes first.
  const Constructor = SnowflakeGenerator as unknown as new (...args: unknown[]) => unknown;

  it.each([
    ['(executor, options)', [executor, { layout: 'sheaf' }]],
    ['(executor)', [executor]],
    ['()', []],
    ['(a lease look-alike, …)', [{ workerId: 1, recordedMs: 0 }, { now: () => 0 }, 10, 30_000, { deadline: 1 }]],
  ])('%s is refused with INVALID_ARGUMENT pointing to SnowflakeGenerator.start', (_what, args) => {
    expectSheafError(
      () => new Constructor(...args),
      'INVALID_ARGUMENT',
      'SnowflakeGenerator is started with `await SnowflakeGenerator.start(db, options)`, not with `new`',
    );
  });
});

describe('SegmentGenerator', () => {
  const valid = { bizTag: 'orders' };
  const cases: Case[] = [
    ...common,
    ['no bizTag', {}, 'INVALID_ARGUMENT', 'bizTag must be non-empty text, not undefined'],
    ['a numeric bizTag', { bizTag: 5 }, 'INVALID_ARGUMENT', 'bizTag must be non-empty text, not 5'],
    ['dynamicStep as text', { dynamicStep: 'no' }, 'INVALID_ARGUMENT', 'dynamicStep must be true or false, not "no"'],
    ['a NaN prefetchRatio', { prefetchRatio: Number.NaN }, 'INVALID_ARGUMENT', 'prefetchRatio must be a number'],
  ];

  it.each(cases)('refuses %s', (what, options, code, fragment) => {
    const merged = what === 'no bizTag' ? options : withValid(valid, options);
    expectSheafError(() => new SegmentGenerator(executor, merged as never), code, fragment);
  });

  it('refuses a database that is not one', () => {
    const call = () => new SegmentGenerator({ query: 'no' } as never, valid);
    expectSheafError(call, 'INVALID_ARGUMENT', 'SegmentGenerator needs a database', 'not an object');
  });
});

describe('BatchedDbIds', () => {
  const cases: Case[] = [
    ...common,
    ['a null batchSize', { batchSize: null }, 'INVALID_ARGUMENT', 'batchSize must be an integer from 1 to 1000000'],
    ['a negative shard', { shard: -1 }, 'SHARD_OUT_OF_RANGE', 'shard -1 is not a non-negative integer'],
    ['a shard as text', { shard: '3' }, 'SHARD_OUT_OF_RANGE', 'shard "3" is not a non-negative integer'],
    ['a bigint shard', { shard: 3n }, 'SHARD_OUT_OF_RANGE', 'shard 3n is not a non-negative integer'],
  ];

  it.each(cases)('refuses %s', (_what, options, code, fragment) => {
    expectSheafError(() => new BatchedDbIds(executor, options as never), code, fragment);
  });

  it('refuses an executor that is not one', () => {
    expectSheafError(() => new BatchedDbIds(null as never), 'INVALID_ARGUMENT', 'BatchedDbIds needs a database');
  });

  it('takes valid options without querying', async () => {
    const ids = new BatchedDbIds(executor, { shard: 3, batchSize: 10, clock: undefined });
    await ids.close();
    expect(pool.totalCount).toBe(0);
  });
});

describe('TicketClient', () => {
  const valid = { name: 'orders' };
  const cases: Case[] = [
    ...common,
    ['no name', {}, 'INVALID_ARGUMENT', 'ticket name must be non-empty text, not undefined'],
    ['a numeric name', { name: 1 }, 'INVALID_ARGUMENT', 'ticket name must be non-empty text, not 1'],
  ];

  it.each(cases)('refuses %s', (what, options, code, fragment) => {
    const merged = what === 'no name' ? options : withValid(valid, options);
    expectSheafError(() => new TicketClient([executor], merged as never), code, fragment);
  });

  it.each([
    ['no servers', null, 'needs an array of at least one server'],
    ['an empty list', [], 'needs an array of at least one server'],
    [
      'a null server',
      [null],
      'TicketClient needs a database: a pg Pool or Client, a mysql2 or mariadb pool or connection, a PGlite instance, or an executor (pgExecutor(pool), …), not null',
    ],
    ['a string', ['postgres://x'], 'TicketClient needs a database'],
  ])('refuses %s', (_what, servers, fragment) => {
    expectSheafError(() => new TicketClient(servers as never, valid), 'INVALID_ARGUMENT', fragment);
  });
});
