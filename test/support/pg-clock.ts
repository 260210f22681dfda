import type { SqlExecutor } from '@sheaf/core';

/**
 * Controls the test clock of a PostgreSQL install made with `testClock: true`, for the session of
 * `executor` (use a dedicated connection: the settings stay on it).
 */
export const pgClock = {
  /** Freezes the clock at unix ms `ms`; `null` returns to the real clock. */
  async set(executor: SqlExecutor, ms: number | null): Promise<void> {
    await executor.query("select set_config('sheaf.clock_ms', $1, false)", [ms === null ? '' : String(ms)]);
  },
  /** Adds `ms` (may be negative) to whatever the clock reads. */
  async offset(executor: SqlExecutor, ms: number): Promise<void> {
    await executor.query("select set_config('sheaf.clock_offset_ms', $1, false)", [String(ms)]);
  },
  async reset(executor: SqlExecutor): Promise<void> {
    await executor.query(
      "select set_config('sheaf.clock_ms', '', false), set_config('sheaf.clock_offset_ms', '', false)",
    );
  },
};

/** Ids as bigints from rows with an `id` column (drivers return int8 as strings). */
export function idsOf(rows: readonly { id: unknown }[]): bigint[] {
  return rows.map((row) => BigInt(row.id as string));
}

/** Fails with the first offending pair unless every id is greater than the one before. */
export function expectIncreasing(ids: readonly bigint[], label = 'ids'): void {
  for (let i = 1; i < ids.length; i++) {
    if (ids[i]! <= ids[i - 1]!) {
      throw new Error(`${label}: id #${i} ${ids[i]} is not above #${i - 1} ${ids[i - 1]}`);
    }
  }
}

/** Fails naming a duplicate unless all ids are distinct. */
export function expectDistinct(ids: Iterable<bigint>, label = 'ids'): number {
  const seen = new Set<bigint>();
  for (const id of ids) {
    if (seen.has(id)) throw new Error(`${label}: duplicate id ${id}`);
    seen.add(id);
  }
  return seen.size;
}
