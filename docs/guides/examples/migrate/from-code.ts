import type { Database } from '@sheaf/core';
import { applyMigration, inspect, plan, planText, touchedTables } from '@sheaf/migrate';

/**
 * Moves `tables` (and every column referencing their keys) onto sheaf ids: reads the schema, logs
 * the plan, then applies it, verifying row counts and checksums of every touched table.
 */
export async function moveToSheafIds(db: Database, tables: string[], log: (text: string) => void) {
  const inspection = await inspect(db, { tables });
  const migration = plan(inspection);
  log(planText(inspection, migration));
  if (migration.steps.length === 0) return [];
  const { after } = await applyMigration(db, migration, { tables: touchedTables(inspection), progress: log });
  return after;
}
