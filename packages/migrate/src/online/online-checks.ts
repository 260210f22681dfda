import type { SqlExecutor } from '@sheaf/core';
import type { OnlineTable } from './online-plan.js';

/** A CHECK constraint naming a widened column: dropping the old column drops it, so the swap adds it back. */
export interface CheckConstraint {
  readonly name: string;
  /** As `pg_get_constraintdef` prints it: by column name, so it applies to the renamed shadow as is. */
  readonly definition: string;
  readonly validated: boolean;
}

/** The table's CHECK constraints on widened columns, sheaf's own NOT NULL stand-ins left out. */
export async function readCheckConstraints(session: SqlExecutor, entry: OnlineTable): Promise<CheckConstraint[]> {
  return session.query<CheckConstraint>(
    `select conname as name, pg_get_constraintdef(oid) as definition, convalidated as validated
     from pg_constraint
     where conrelid = $1 and contype = 'c' and conkey::int[] && $2::int[] and conname not like 'sheaf\\_online\\_%'
     order by conname`,
    [entry.oid, entry.columns.map((c) => c.attnum)],
  );
}
