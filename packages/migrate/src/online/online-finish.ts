import type { SqlExecutor } from '@sheaf/core';
import type { Output } from '../output.js';
import { display } from './online-names.js';
import { readStates, updateState } from './online-state.js';

/**
 * Runs what every swapped table still has to do (validate its foreign keys, analyze it) and marks it
 * done. Validation scans the referencing table under SHARE UPDATE EXCLUSIVE, which lets reads and
 * writes through. The statements are idempotent, so a run interrupted here repeats them safely.
 * Resolves to the tables it finished.
 */
export async function finishSwapped(executor: SqlExecutor, output: Output): Promise<string[]> {
  const finished: string[] = [];
  for (const state of await readStates(executor)) {
    if (state.phase !== 'swapped') continue;
    for (const statement of state.afterSwap) await executor.query(statement);
    await updateState(executor, state.table, { phase: 'done', afterSwap: [] });
    output.err(`online: validated foreign keys and analyzed ${display(state.table)}\n`);
    finished.push(display(state.table));
  }
  return finished;
}
