import { SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';
import { type Database, executorOf } from '../../executors/executor-of.js';
import { shardArgument } from '../../shard-argument.js';
import type { Clock } from '../shared/clock.js';
import { type DialectSql, sqlFor } from '../shared/dialect-sql.js';
import { asKind, type IdKind, type IdOf, idKind, int8 } from '../shared/id-kind.js';
import { messageOf } from '../shared/message-of.js';
import { clockOption, intOption, optionsObject, type RetryOptions, retryOptions } from '../shared/options.js';
import { Refill } from '../shared/refill.js';

/** The SQL of BatchedDbIds per dialect: rows `(id)`, crash-durable (ids must never come back after a crash). */
const batchSql: DialectSql<{ readonly batch: string; readonly batchOnShard: string }> = {
  postgres: {
    batch: 'select id::text as id from sheaf.next_ids_durable($1::integer) as id',
    batchOnShard: 'select id::text as id from sheaf.next_ids_durable($1::integer, $2::integer) as id',
  },
  // Durable in autocommit: the procedure claims a chunk of its own, so its commit flushes the redo log.
  mysql: { batch: 'call sheaf_next_ids(?)', batchOnShard: 'call sheaf_next_shard_ids(?, ?)' },
};

/**
 * What {@link BatchedDbIds} takes; every option has a default.
 *
 * @example
 * const options: BatchedDbIdsOptions = { batchSize: 500, lowWater: 100 };
 */
export interface BatchedDbIdsOptions<K extends IdKind = 'bigint'> {
  /** Ids per query (default 1,000). */
  readonly batchSize?: number;
  /** Refill in the background when this many ids are left (default a quarter of `batchSize`). */
  readonly lowWater?: number;
  /** The shard to generate for (default: the database's configured shard). */
  readonly shard?: number;
  /** `'bigint'` (default) or `'number'` (the database's layout must be `js53`). */
  readonly ids?: K;
  /** How long `next()` waits when the buffer is empty (default 5,000 ms). */
  readonly waitTimeoutMs?: number;
  /** How long one batch query may take before it counts as failed (default 10,000 ms). */
  readonly queryTimeoutMs?: number;
  /** Backoff between failed batches (default 100 ms doubling to 10 s). */
  readonly retry?: RetryOptions;
  readonly clock?: Clock;
}

/**
 * The database's own snowflake ids, fetched in batches through the crash-durable
 * `sheaf.next_ids_durable(n)` (`call sheaf_next_ids(n)` on MySQL/MariaDB) and handed out from memory: for ORMs that must know the key before
 * the INSERT, at a fraction of a round trip per id. Refills in the background at a low-water mark.
 *
 * @example
 * const ids = new BatchedDbIds(executor, { batchSize: 1000 });
 * await prisma.order.create({ data: { id: await ids.next(), total } });
 */
export class BatchedDbIds<K extends IdKind = 'bigint'> {
  private buffer: IdOf<K>[] = [];
  private index = 0;
  private readonly executor: SqlExecutor;
  private readonly sql: string;
  private readonly params: readonly number[];
  private readonly kind: IdKind;
  private readonly lowWater: number;
  private readonly waitTimeoutMs: number;
  private readonly clock: Clock;
  private readonly refill: Refill<IdOf<K>[]>;
  private readonly stop = new AbortController();

  constructor(db: Database, given: BatchedDbIdsOptions<K> = {}) {
    const executor = executorOf(db, 'BatchedDbIds');
    const options = optionsObject('BatchedDbIds', given);
    const batchSize = intOption('batchSize', options.batchSize, 1000, 1, 1_000_000);
    const queries = sqlFor(executor, batchSql, 'BatchedDbIds');
    this.executor = executor;
    this.sql = options.shard === undefined ? queries.batch : queries.batchOnShard;
    this.params = options.shard === undefined ? [batchSize] : [batchSize, shardArgument(options.shard)];
    this.kind = idKind(options.ids, 'bigint');
    this.lowWater = intOption('lowWater', options.lowWater, Math.floor(batchSize / 4), 0, batchSize);
    this.waitTimeoutMs = intOption('waitTimeoutMs', options.waitTimeoutMs, 5000, 0, 2 ** 31 - 1);
    this.clock = clockOption(options.clock);
    const retry = retryOptions(options.retry, 100, 10_000);
    this.refill = new Refill(
      () => this.fetch(),
      (ids) => this.accept(ids),
      {
        minBackoffMs: retry.minMs,
        maxBackoffMs: retry.maxMs,
        queryTimeoutMs: intOption('queryTimeoutMs', options.queryTimeoutMs, 10_000, 1, 2 ** 31 - 1),
        signal: this.stop.signal,
        closed: () => new SheafError('GENERATOR_CLOSED', 'BatchedDbIds is closed'),
      },
    );
  }

  /** The next id from memory, or undefined when the buffer is empty (a refill is then under way). */
  nextSync(): IdOf<K> | undefined {
    const left = this.buffer.length - this.index;
    if (left <= this.lowWater) {
      if (this.stop.signal.aborted) throw new SheafError('GENERATOR_CLOSED', 'BatchedDbIds is closed');
      if (left === 0 && this.refill.permanentError !== undefined) throw this.refill.permanentError;
      this.refill.request();
      if (left === 0) return undefined;
    }
    return this.buffer[this.index++];
  }

  /** The next id; waits up to `waitTimeoutMs` for a batch, then rejects with `BATCH_UNAVAILABLE`. */
  async next(): Promise<IdOf<K>> {
    const deadline = this.clock.monotonic() + this.waitTimeoutMs;
    for (;;) {
      const id = this.nextSync();
      if (id !== undefined) return id;
      const left = deadline - this.clock.monotonic();
      if (left > 0 && (await this.refill.wait(left))) continue;
      const late = this.nextSync();
      if (late !== undefined) return late;
      const { lastError, failures } = this.refill;
      throw new SheafError(
        'BATCH_UNAVAILABLE',
        `no ids left in memory and no batch arrived within ${this.waitTimeoutMs} ms (${failures} failed batches; ` +
          `last: ${messageOf(lastError)})`,
        { cause: lastError, details: { waitTimeoutMs: this.waitTimeoutMs, failures } },
      );
    }
  }

  /** Ids left in memory. */
  get remaining(): number {
    return this.buffer.length - this.index;
  }

  /**
   * Stops refills and timers; ids left in memory are dropped (never reissued by the database).
   * Resolves once no batch query is in flight (or the one in flight outlived `queryTimeoutMs`), so
   * the pool may be ended right after.
   */
  close(): Promise<void> {
    this.buffer = [];
    this.index = 0;
    this.stop.abort();
    return this.refill.idle();
  }

  private async fetch(): Promise<IdOf<K>[]> {
    const rows = await this.executor.query<{ id: unknown }>(this.sql, this.params);
    return rows.map((row) => asKind(int8(row.id, 'id'), this.kind, 'BatchedDbIds') as IdOf<K>);
  }

  private accept(ids: IdOf<K>[]): void {
    this.buffer = this.index >= this.buffer.length ? ids : this.buffer.slice(this.index).concat(ids);
    this.index = 0;
  }
}
