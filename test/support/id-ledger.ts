import { decodeId, defaultLayout } from '@sheaf/core';

/**
 * Every id a test was handed, millions of them: single ids in 8 bytes each (a Set of bigints costs
 * ten times that), and batches as the runs they are (every id of one shard from the first to the
 * last, in the default layout), which cost nothing to fetch.
 */
export class IdLedger {
  private ids = new BigInt64Array(1 << 16);
  private size = 0;
  private sorted = true;
  private readonly runs: { first: bigint; last: bigint; shardId: number }[] = [];
  private inRuns = 0;

  get count(): number {
    return this.size + this.inRuns;
  }

  /**
   * Adds a batch of `count` ids from `first` to `last`, which must be a run: every id of their
   * shard in between, once.
   */
  addRun(first: bigint, last: bigint, count: number): void {
    const [a, b] = [decodeId(first), decodeId(last)];
    const size = (b.ms - a.ms) * 2 ** defaultLayout.sequenceBits + b.sequence - a.sequence + 1;
    if (a.shardId !== b.shardId || size !== count) {
      throw new Error(`${count} ids from ${first} to ${last} are not one run of shard ${a.shardId} (${size} ids)`);
    }
    this.runs.push({ first, last, shardId: a.shardId });
    this.inRuns += count;
  }

  /** Adds the ids of a comma-separated list, as `string_agg(id::text, ',')` returns them. */
  addList(list: string | null): void {
    if (!list) return;
    for (const text of list.split(',')) this.add(BigInt(text));
  }

  add(id: bigint): void {
    if (this.size === this.ids.length) {
      const grown = new BigInt64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.size++] = id;
    this.sorted = false;
  }

  has(id: bigint): boolean {
    const shardId = decodeId(id).shardId;
    if (this.runs.some((run) => run.first <= id && id <= run.last && run.shardId === shardId)) return true;
    const ids = this.seal();
    let low = 0;
    let high = ids.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = ids[middle]!;
      if (value === id) return true;
      if (value < id) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  /** The ids among `ids` that the ledger holds. */
  found(ids: Iterable<bigint>): bigint[] {
    return [...ids].filter((id) => this.has(id));
  }

  get max(): bigint | undefined {
    const ids = this.seal();
    const highest = [...(ids.length === 0 ? [] : [ids[ids.length - 1]!]), ...this.runs.map((run) => run.last)];
    return highest.reduce<bigint | undefined>((max, id) => (max === undefined || id > max ? id : max), undefined);
  }

  private seal(): BigInt64Array {
    const ids = this.ids.subarray(0, this.size);
    if (!this.sorted) {
      ids.sort();
      this.sorted = true;
    }
    return ids;
  }
}
