import type { SqlExecutor } from '@sheaf/core';
import type { Output } from '../output.js';
import { display, q, qualified } from './online-names.js';
import type { OnlineTable } from './online-plan.js';
import { progressBar } from './online-progress.js';
import { type OnlineState, updateState } from './online-state.js';
import { sleep, transaction } from './online-transaction.js';

/** How the backfill paces itself. */
export interface BackfillOptions {
  readonly batchSize: number;
  /** A pause between batches, to leave the server (and replicas) room; 0 by default. */
  readonly pauseMs: number;
  readonly interactive: boolean;
  /** Whether this role may set session_replication_role (see {@link canSkipUserTriggers}). */
  readonly skipUserTriggers: boolean;
}

/**
 * Copies every old value into its shadow, walking the table's primary key in batches of its own
 * short transactions, each recording how far it got in the same commit: a killed run resumes at the
 * first batch not committed. Only keys up to the largest one seen when the backfill began are
 * walked; rows written later already went through the copy trigger.
 */
export async function backfillTable(
  executor: SqlExecutor,
  entry: OnlineTable,
  state: OnlineState,
  output: Output,
  options: BackfillOptions,
): Promise<void> {
  const started = state.upperKey ? state : await startBackfill(executor, entry);
  if (!started.upperKey) return;
  const progress = progressBar(output, `backfill ${display(entry.table)}`, started.rowsTotal ?? 0n, {
    interactive: options.interactive,
    resumedAt: started.rowsDone,
  });
  const batch = batchSql(entry);
  let { lastKey, rowsDone } = started;
  for (let more = true; more; ) {
    if (lastKey && options.pauseMs > 0) await sleep(options.pauseMs);
    const params = [...(lastKey ?? []), ...started.upperKey, options.batchSize];
    const result = await transaction(executor, async (session) => {
      if (options.skipUserTriggers) await session.query('set local session_replication_role = replica');
      const [row] = await session.query<{ visited: number; last: string[] | null }>(batch(lastKey !== null), params);
      const count = row?.visited ?? 0;
      const last = row?.last ?? lastKey;
      await updateState(session, entry.table, { lastKey: last, rowsDone: rowsDone + BigInt(count) });
      return { count, last };
    });
    more = result.count === options.batchSize;
    lastKey = result.last;
    rowsDone += BigInt(result.count);
    progress.update(rowsDone);
  }
  progress.finish(rowsDone);
  // The rows walked are the true total: rows written after the count, below the upper key, are in it.
  await updateState(executor, entry.table, { phase: 'backfilled', rowsTotal: rowsDone });
}

/**
 * Whether the backfill can keep the table's own triggers from firing: its UPDATE only fills shadow
 * columns, and an audit trigger or an `updated_at` trigger must not see it as a change of every row.
 * Setting session_replication_role needs superuser (or, from PostgreSQL 15, a SET grant on it).
 */
export async function canSkipUserTriggers(executor: SqlExecutor): Promise<boolean> {
  try {
    await transaction(executor, (session) => session.query('set local session_replication_role = replica'));
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === insufficientPrivilege) return false;
    throw error;
  }
}

const insufficientPrivilege = '42501';

/** Records the largest key and the row estimate; an empty table has nothing to copy. */
async function startBackfill(executor: SqlExecutor, entry: OnlineTable): Promise<OnlineState> {
  const key = entry.keyColumns.map((k) => q(k.name));
  const [upper] = await executor.query<{ key: string[] }>(
    `select array[${key.map((k) => `${k}::text`).join(', ')}] as key from ${qualified(entry.table)}
     order by ${key.map((k) => `${k} desc`).join(', ')} limit 1`,
  );
  const rowsTotal = entry.migrated?.rowCount ?? (await estimateRows(executor, entry));
  const fields = upper ? { upperKey: upper.key, rowsTotal } : { phase: 'backfilled' as const, rowsTotal };
  await updateState(executor, entry.table, fields);
  return {
    table: entry.table,
    oid: entry.oid,
    phase: 'prepared',
    lastKey: null,
    upperKey: upper?.key ?? null,
    rowsDone: 0n,
    rowsTotal,
    afterSwap: [],
  };
}

/** The planner's row estimate, or an exact count when the table was never analyzed. */
async function estimateRows(executor: SqlExecutor, entry: OnlineTable): Promise<bigint> {
  const [row] = await executor.query<{ estimate: string }>(
    'select reltuples::bigint::text as estimate from pg_class where oid = $1',
    [entry.oid],
  );
  const estimate = BigInt(row?.estimate ?? '-1');
  if (estimate > 0n) return estimate;
  const [counted] = await executor.query<{ n: string }>(`select count(*)::text as n from ${qualified(entry.table)}`);
  return BigInt(counted?.n ?? '0');
}

/**
 * One batch: the next `limit` keys after the last one (when `resumed`) up to the upper key, and the
 * rows among them whose shadows differ. Parameters: last key's columns (if resumed), upper key's
 * columns, limit. Keys travel as text and are cast to the key's own types, so any key type works.
 */
function batchSql(entry: OnlineTable): (resumed: boolean) => string {
  const n = entry.keyColumns.length;
  const key = entry.keyColumns.map((k) => q(k.name));
  const tuple = (offset: number) => `(${entry.keyColumns.map((k, i) => `$${offset + i + 1}::${k.type}`).join(', ')})`;
  const row = (alias: string) => `(${key.map((k) => `${alias}.${k}`).join(', ')})`;
  const set = entry.columns.map((c) => `${q(c.shadow)} = sheaf_target.${q(c.column)}`).join(', ');
  const differs = entry.columns.map((c) => `sheaf_target.${q(c.shadow)} is distinct from sheaf_target.${q(c.column)}`);
  return (resumed) => {
    const lower = resumed ? `(${key.join(', ')}) > ${tuple(0)} and ` : '';
    const offset = resumed ? n : 0;
    return `with sheaf_batch as (
        select ${key.join(', ')} from ${qualified(entry.table)}
        where ${lower}(${key.join(', ')}) <= ${tuple(offset)}
        order by ${key.join(', ')} limit $${offset + n + 1}
      ), sheaf_copy as (
        -- A data-modifying WITH runs to completion even though the select below does not read it.
        update ${qualified(entry.table)} as sheaf_target set ${set} from sheaf_batch
        where ${row('sheaf_target')} = ${row('sheaf_batch')} and (${differs.join(' or ')})
      )
      select (select count(*) from sheaf_batch)::int as visited,
        (select array[${key.map((k) => `${k}::text`).join(', ')}] from sheaf_batch
         order by ${key.map((k) => `${k} desc`).join(', ')} limit 1) as last`;
  };
}
