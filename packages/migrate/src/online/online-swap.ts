import { SheafError, type SqlExecutor } from '@sheaf/core';
import type { Inspection } from '../model.js';
import { readCheckConstraints } from './online-checks.js';
import { readColumnSettings } from './online-column-settings.js';
import { readIndexCopies } from './online-indexes.js';
import { display, displayPart, q, qualified } from './online-names.js';
import type { OnlineTable } from './online-plan.js';
import { updateState } from './online-state.js';
import { swapSql, type TableObjects } from './online-swap-sql.js';
import { type LockPolicy, lockingTransaction, lockTables } from './online-transaction.js';

/**
 * Swaps every table onto its shadow columns in one transaction under ACCESS EXCLUSIVE locks, taken
 * together up front and bounded by the lock policy; resolves to how long the locks were held (ms).
 * Before changing anything it re-reads the indexes, CHECK constraints, grants and settings of the old columns (an index
 * added since the copies were built fails the swap, and a re-run copies it) and re-checks that no key reached sheaf's floor meanwhile.
 */
export async function swapTables(
  executor: SqlExecutor,
  inspection: Inspection,
  plan: readonly OnlineTable[],
  policy: LockPolicy,
): Promise<number> {
  let locked = 0;
  await lockingTransaction(executor, policy, async (session) => {
    await lockTables(
      session,
      plan.map((entry) => qualified(entry.table)),
      policy,
    );
    locked = performance.now();
    const objects = new Map<OnlineTable, TableObjects>();
    for (const entry of plan) {
      objects.set(entry, {
        indexes: await readIndexCopies(session, entry),
        checks: await readCheckConstraints(session, entry),
        columnSettings: await readColumnSettings(session, entry),
      });
    }
    await requireCopies(session, plan, objects);
    await requireBelowFloor(session, inspection, plan);
    const sql = swapSql(inspection, plan, objects);
    for (const statement of sql.statements) await session.query(statement);
    for (const [entry, after] of sql.afterSwap) {
      await updateState(session, entry.table, { phase: 'swapped', afterSwap: after });
    }
  });
  return performance.now() - locked;
}

async function requireCopies(
  session: SqlExecutor,
  plan: readonly OnlineTable[],
  objects: ReadonlyMap<OnlineTable, TableObjects>,
): Promise<void> {
  const wanted = plan.flatMap((entry) =>
    (objects.get(entry)?.indexes ?? []).map((index) => ({
      entry,
      index,
      name: qualified({ schema: entry.table.schema, name: index.copy }),
    })),
  );
  const valid = await session.query<{ name: string }>(
    `select n as name from unnest($1::text[]) n join pg_index i on i.indexrelid = to_regclass(n) where i.indisvalid`,
    [wanted.map((w) => w.name)],
  );
  const missing = wanted.filter((w) => !valid.some((row) => row.name === w.name));
  if (missing.length === 0) return;
  const names = missing.map((m) => `${displayPart(m.index.name)} on ${display(m.entry.table)}`).join(', ');
  throw new SheafError(
    'VERIFY_FAILED',
    `no finished copy of index ${names} on the shadow columns: run the migration again to build it`,
    {
      details: { indexes: names },
    },
  );
}

async function requireBelowFloor(
  session: SqlExecutor,
  inspection: Inspection,
  plan: readonly OnlineTable[],
): Promise<void> {
  for (const entry of plan) {
    const name = entry.migrated?.primaryKey.column;
    if (name === undefined) continue;
    // The shadow of a widened key; a key already bigint is read as it is.
    const column = entry.columns.find((c) => c.column === name)?.shadow ?? name;
    const [row] = await session.query<{ max: string | null }>(
      `select max(${q(column)})::text as max from ${qualified(entry.table)}`,
    );
    if (row?.max == null || BigInt(row.max) < inspection.sheafFloor) continue;
    throw new SheafError(
      'KEYS_ABOVE_FLOOR',
      `${display(entry.table)} holds keys up to ${row.max}, at or above ${inspection.sheafFloor} (the first sheaf id): new ids could collide with these rows`,
      { details: { table: display(entry.table), max: row.max, floor: inspection.sheafFloor.toString() } },
    );
  }
}
