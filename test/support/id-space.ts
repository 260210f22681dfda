import { decodeId } from '@sheaf/core';

/** Whether `error`, or one of its causes, is a duplicate-key violation (pg, mysql2, mariadb, Prisma). */
export function isDuplicateKey(error: unknown): boolean {
  for (let link = error, depth = 0; link && depth < 8; link = (link as { cause?: unknown }).cause, depth++) {
    const { code, errno, message } = link as { code?: unknown; errno?: unknown; message?: unknown };
    if (code === '23505' || code === 'ER_DUP_ENTRY' || code === 'P2002' || errno === 1062) return true;
    if (typeof message === 'string' && /duplicate key|duplicate entry|unique constraint failed/i.test(message)) {
      return true;
    }
  }
  return false;
}

/** A source of ids as the ORMs take them. */
export interface IdSourceLike {
  next(): bigint;
}

/**
 * What went into one table from every path of a guide: the ids each app-side generator made, keyed
 * by its worker id, the rows attempted, and the writes refused as duplicate keys. Writes go on after
 * a duplicate, so a failing run reports how many collided, not only the first.
 */
export class IdTally {
  readonly appIds = new Map<number, bigint[]>();
  /** Rows the writes tried to insert. */
  attempted = 0;
  /** Writes (statements or ORM calls) refused with a duplicate key. */
  duplicates = 0;

  /** Records ids that the app-side generator on `workerId` made. */
  add(workerId: number, ...ids: readonly (bigint | string)[]): void {
    const list = this.appIds.get(workerId) ?? [];
    this.appIds.set(workerId, list);
    for (const id of ids) list.push(BigInt(id));
  }

  /** Wraps a generator so that every id it makes is recorded under `workerId`. */
  record(workerId: number, source: IdSourceLike): IdSourceLike {
    this.add(workerId);
    return {
      next: () => {
        const id = source.next();
        this.add(workerId, id);
        return id;
      },
    };
  }

  /**
   * Runs `count` writes of `rows` rows each, one after another, counting duplicate keys instead of
   * stopping at the first.
   */
  async repeat(count: number, write: (i: number) => Promise<unknown>, rows = 1): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.attempted += rows;
      try {
        await write(i);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        this.duplicates++;
      }
    }
  }

  /**
   * Runs writes of `rows` rows each until `work` settles (at least one): a fast path keeps writing
   * for as long as a slower one runs, so that the two overlap in time. Rejects when `work` does.
   */
  async during(work: Promise<unknown>, write: () => Promise<unknown>, rows = 1): Promise<void> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    do await this.repeat(1, write, rows);
    while (!settled);
    await done;
  }
}

/** A row of the table, and whether the database made its id (the marker the test wrote with it). */
export interface WrittenRow {
  readonly id: bigint | string;
  readonly byDatabase: boolean;
}

/** The id-space facts of a run, shaped so that `toEqual(clean(n))` prints every number when it fails. */
export interface IdSpaceReport {
  duplicateKeyErrors: number;
  rows: number;
  distinctIds: number;
  /** Worker ids leased by the app generators that equal the database's shard. */
  sharedShards: number[];
  /** App-made ids whose shard field is not their generator's worker id. */
  appIdsOffWorker: number;
  /** Database-made rows whose shard field is not the database's shard. */
  dbIdsOffShard: number;
  /** Rows not marked as the database's whose id no app generator made. */
  unknownAppRows: number;
}

/** Checks the rows of one table against the tally and the database's shard. */
export function idSpaceReport(tally: IdTally, rows: readonly WrittenRow[], dbShard: number): IdSpaceReport {
  const made = new Set<bigint>();
  let appIdsOffWorker = 0;
  for (const [workerId, ids] of tally.appIds) {
    for (const id of ids) {
      made.add(id);
      if (decodeId(id).shardId !== workerId) appIdsOffWorker++;
    }
  }
  const ids = rows.map((row) => BigInt(row.id));
  return {
    duplicateKeyErrors: tally.duplicates,
    rows: rows.length,
    distinctIds: new Set(ids).size,
    sharedShards: [...tally.appIds.keys()].filter((workerId) => workerId === dbShard),
    appIdsOffWorker,
    dbIdsOffShard: rows.filter((row) => row.byDatabase && decodeId(row.id).shardId !== dbShard).length,
    unknownAppRows: rows.filter((row) => !row.byDatabase && !made.has(BigInt(row.id))).length,
  };
}

/** The report of a run without a collision in which `rows` rows were written. */
export function clean(rows: number): IdSpaceReport {
  return {
    duplicateKeyErrors: 0,
    rows,
    distinctIds: rows,
    sharedShards: [],
    appIdsOffWorker: 0,
    dbIdsOffShard: 0,
    unknownAppRows: 0,
  };
}
