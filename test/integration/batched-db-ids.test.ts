import { BatchedDbIds, decodeId, install } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { queryState } from '../support/state-sql.js';
import { until } from '../support/test-clock.js';

const addShard = { postgres: 'select sheaf.add_shard(9)', mysql: 'call {state}.sheaf_add_shard(9)' };

describeTargets('BatchedDbIds', (db) => {
  const sql = () => db().executor;

  beforeAll(async () => {
    await install(sql(), { shard: 3 });
  });

  it('hands out increasing, distinct ids from durable batches, refilling in the background at the low-water mark', async () => {
    const ids = new BatchedDbIds(sql(), { batchSize: 100, lowWater: 20 });
    const taken = [await ids.next()];
    expect(ids.remaining).toBe(99);
    while (taken.length < 80) taken.push(ids.nextSync()!);
    expect(ids.remaining).toBe(20);
    taken.push(ids.nextSync()!);
    await until(() => ids.remaining === 119, 5000, 'the refill');
    while (taken.length < 1000) taken.push(ids.nextSync() ?? (await ids.next()));
    for (let i = 1; i < taken.length; i++) expect(taken[i]! > taken[i - 1]!).toBe(true);
    expect(decodeId(taken[0]!).shardId).toBe(3);
    await ids.close();
    await expectSheafRejection(ids.next(), 'GENERATOR_CLOSED');
  });

  it('generates for another shard on request and refuses Number mode for ids above 2^53', async () => {
    // A shard other than its own is one the database must have been given (SHARD_NOT_OWNED otherwise).
    await expectSheafRejection(new BatchedDbIds(sql(), { batchSize: 10, shard: 9 }).next(), 'SHARD_NOT_OWNED', '9');
    await queryState(sql(), addShard[db().target === 'mariadb' ? 'mysql' : 'postgres']);
    const onShard = new BatchedDbIds(sql(), { batchSize: 10, shard: 9 });
    expect(decodeId(await onShard.next()).shardId).toBe(9);
    await onShard.close();
    const numbers = new BatchedDbIds(sql(), { ids: 'number' });
    await expectSheafRejection(numbers.next(), 'ID_OUT_OF_RANGE', "use ids: 'bigint'");
    await numbers.close();
  });
});
