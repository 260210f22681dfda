import { SheafError, type SqlExecutor } from '@sheaf/core';
import { readIndexCopies } from './online-indexes.js';
import { copyTriggerName, display, notNullCheckName } from './online-names.js';
import { type OnlineTable, sameTable } from './online-plan.js';
import { type OnlineState, readStates } from './online-state.js';

/**
 * Checks every table before the first change, so that a refusal leaves the database as it was
 * (not even `sheaf.online_migrations` is created): each index on a widened column can be rebuilt on
 * the shadows (UNSUPPORTED_KEY otherwise), and no table still to prepare already has a column,
 * trigger or constraint of the names the preparation adds (NAME_TAKEN, naming every one).
 * `prepareTable` checks the names again under its lock, against a change made meanwhile.
 */
export async function preflight(executor: SqlExecutor, plan: readonly OnlineTable[]): Promise<void> {
  for (const entry of plan) await readIndexCopies(executor, entry);
  const states = await recordedStates(executor);
  const taken: string[] = [];
  for (const entry of plan) {
    const state = states.find((s) => sameTable(s.table, entry.table) && s.oid === entry.oid);
    // A table prepared by an interrupted run has these names legitimately: the run resumes it.
    if (entry.columns.length === 0 || (state && state.phase !== 'done')) continue;
    const names = await takenNames(executor, entry);
    if (names.length > 0) taken.push(`${names.join(', ')} on ${display(entry.table)}`);
  }
  if (taken.length === 0) return;
  throw new SheafError(
    'NAME_TAKEN',
    `cannot prepare the online migration: ${taken.join('; ')} already exist(s) and no online migration of the table is recorded; rename or drop them first`,
    { details: { taken } },
  );
}

/** The recorded states, or none when no online migration ever ran here (the table does not exist yet). */
async function recordedStates(executor: SqlExecutor): Promise<OnlineState[]> {
  const [row] = await executor.query<{ found: boolean }>(
    `select to_regclass('sheaf.online_migrations') is not null as found`,
  );
  return row?.found ? readStates(executor) : [];
}

async function takenNames(executor: SqlExecutor, entry: OnlineTable): Promise<string[]> {
  const rows = await executor.query<{ name: string }>(
    `select 'column ' || attname as name from pg_attribute
       where attrelid = $1 and attname = any($2::text[]) and not attisdropped
     union all select 'trigger ' || tgname from pg_trigger where tgrelid = $1 and tgname = $3
     union all select 'constraint ' || conname from pg_constraint where conrelid = $1 and conname = any($4::text[])
     order by 1`,
    [
      entry.oid,
      entry.columns.map((c) => c.shadow),
      copyTriggerName,
      entry.columns.filter((c) => c.notNull).map((c) => notNullCheckName(c.attnum)),
    ],
  );
  return rows.map((row) => row.name);
}
