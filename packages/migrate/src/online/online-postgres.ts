import { type Database, executorOf, SheafError, type SqlExecutor } from '@sheaf/core';
import type { Inspection } from '../model.js';
import type { Output } from '../output.js';
import { backfillTable, canSkipUserTriggers } from './online-backfill.js';
import { finishSwapped } from './online-finish.js';
import { buildIndexCopies, readIndexCopies } from './online-indexes.js';
import { display, notNullCheckName, q, qualified } from './online-names.js';
import { type OnlineTable, readPlan, sameTable } from './online-plan.js';
import { preflight } from './online-preflight.js';
import { prepareTable } from './online-prepare.js';
import { ensureStateTable, type OnlinePhase, type OnlineState, readStates, updateState } from './online-state.js';
import { swapTables } from './online-swap.js';
import { type LockPolicy, lockConflict } from './online-transaction.js';

/** Tuning of `sheaf migrate --online`. */
export interface OnlineOptions {
  /** Rows per backfill transaction (default 5000). */
  readonly batchSize?: number;
  /** Pause between backfill batches in milliseconds (default 0). */
  readonly pauseMs?: number;
  /** How long a schema change may wait for its table lock before it backs off and retries (default 2000 ms). */
  readonly lockTimeoutMs?: number;
  /** Tries per schema change before giving up (default 10). */
  readonly lockAttempts?: number;
  /** Redraw one progress bar (a terminal) or print plain lines; default: whether stderr is a terminal. */
  readonly interactive?: boolean;
}

const phases: readonly OnlinePhase[] = ['prepared', 'backfilled', 'indexed', 'swapped', 'done'];

/**
 * Moves the inspected tables onto sheaf ids without holding a lock for long: shadow bigint columns
 * kept equal by a trigger, a batched backfill, indexes built concurrently, then one short swap.
 * Every step is recorded in `sheaf.online_migrations`, so running it again after an interruption
 * resumes where it stopped; when nothing is left to change it prints "nothing to do".
 *
 * @example
 * await runOnline(pool, await inspect(pool, { tables: ['orders'] }), { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) }, { batchSize: 10_000 });
 */
export async function runOnline(
  db: Database,
  inspection: Inspection,
  output: Output,
  options: OnlineOptions = {},
): Promise<void> {
  const executor = executorOf(db, 'runOnline');
  if (executor.dialect.name !== 'postgres') {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `runOnline: the online mode is PostgreSQL only, not ${executor.dialect.name}`,
    );
  }
  // The inspection lists only columns still to change, so a table migrated before (even one whose
  // row says done, widened as a referencing table) is planned again exactly when it has work left.
  const plan = await readPlan(executor, inspection);
  // Every refusal comes before the first change: readPlan refuses tables it cannot copy, preflight
  // indexes it could not rebuild and names already taken, so a refused run leaves no trace.
  await preflight(executor, plan);
  await ensureStateTable(executor);
  const resumed = await finishSwapped(executor, output);
  const states = await readStates(executor);
  if (plan.length === 0) {
    output.out(resumed.length > 0 ? `finished the online migration of ${resumed.join(', ')}\n` : 'nothing to do\n');
    return;
  }
  const policy: LockPolicy = {
    lockTimeoutMs: options.lockTimeoutMs ?? 2000,
    attempts: options.lockAttempts ?? 10,
    onRetry: (attempt, error) => output.err(`online: ${lockConflict(error)} (attempt ${attempt}), retrying\n`),
  };
  for (const entry of plan) {
    const state = stateOf(states, entry);
    if (entry.columns.length === 0 || (state && state.phase !== 'done')) continue;
    await prepareTable(executor, entry, policy);
    output.err(
      `online: added ${entry.columns.map((c) => c.shadow).join(', ')} and a copy trigger to ${display(entry.table)}\n`,
    );
  }
  await backfillAll(executor, plan, output, options);
  await prepareIndexes(executor, plan, output);
  const heldMs = await swapTables(executor, inspection, plan, policy);
  output.err(`online: swapped ${plan.length} table(s) in one transaction; locks held ${heldMs.toFixed(1)} ms\n`);
  await finishSwapped(executor, output);
  output.out(
    `migrated ${plan.map((entry) => display(entry.table)).join(', ')} online (swap held locks ${Math.round(heldMs)} ms)\n`,
  );
}

async function backfillAll(
  executor: SqlExecutor,
  plan: readonly OnlineTable[],
  output: Output,
  options: OnlineOptions,
) {
  const states = await readStates(executor);
  const skipUserTriggers = await canSkipUserTriggers(executor);
  if (!skipUserTriggers) {
    output.err(
      "online: warning: this role may not set session_replication_role, so the tables' own triggers fire for every backfilled row\n",
    );
  }
  for (const entry of plan) {
    const state = stateOf(states, entry);
    if (!state || reached(state, 'backfilled')) continue;
    await backfillTable(executor, entry, state, output, {
      batchSize: options.batchSize ?? 5000,
      pauseMs: options.pauseMs ?? 0,
      interactive: options.interactive ?? process.stderr.isTTY === true,
      skipUserTriggers,
    });
  }
}

/**
 * Builds the index copies and proves the NOT NULL shadows, neither of which blocks writes. Run on
 * every attempt, even past this phase: an index added to the table since gets its copy, and what
 * exists already is skipped (or validated again, which is instant).
 */
async function prepareIndexes(executor: SqlExecutor, plan: readonly OnlineTable[], output: Output) {
  for (const entry of plan.filter((e) => e.columns.length > 0)) {
    const copies = await readIndexCopies(executor, entry);
    await buildIndexCopies(executor, entry, copies);
    for (const column of entry.columns.filter((c) => c.notNull)) {
      await executor.query(
        `alter table ${qualified(entry.table)} validate constraint ${q(notNullCheckName(column.attnum))}`,
      );
    }
    await updateState(executor, entry.table, { phase: 'indexed' });
    output.err(
      `online: built ${copies.length} index(es) concurrently on the shadow columns of ${display(entry.table)}\n`,
    );
  }
}

/** The table's recorded state; one recorded for a dropped table of the same name does not count. */
function stateOf(states: readonly OnlineState[], entry: OnlineTable): OnlineState | undefined {
  return states.find((state) => sameTable(state.table, entry.table) && state.oid === entry.oid);
}

function reached(state: OnlineState | undefined, phase: OnlinePhase): boolean {
  return state !== undefined && phases.indexOf(state.phase) >= phases.indexOf(phase);
}
