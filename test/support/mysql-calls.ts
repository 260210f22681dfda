import type { SqlExecutor } from '@sheaf/core';

/** `count` ids from `call sheaf_next_ids(count)` as bigints. */
export async function nextIds(executor: SqlExecutor, count: number): Promise<bigint[]> {
  const rows = await executor.query<{ id: string }>('call sheaf_next_ids(?)', [count]);
  return rows.map((row) => BigInt(row.id));
}

/** A vector's ISO time as the DATETIME(3) literal MySQL takes. */
export const datetime = (iso: string) => iso.replace('T', ' ').replace('Z', '');
