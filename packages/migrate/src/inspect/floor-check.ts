import { type DialectName, SheafError } from '@sheaf/core';
import type { QualifiedName } from '../model.js';
import { display } from '../names.js';

/** The highest key a table holds or its old generator would hand out next. */
export interface KeyHigh {
  readonly table: QualifiedName;
  readonly high: bigint | null;
  /** What `high` is, for the message: "holds keys up to", "its sequence public.s is at". */
  readonly what: string;
}

/**
 * Refuses (KEYS_ABOVE_FLOOR) when any key is at or above the first id sheaf issues now: those rows
 * could collide with new ids. Keys below it never can, since sheaf ids only grow with time.
 */
export function checkFloor(
  highs: readonly KeyHigh[],
  floor: bigint,
  floorTime: string,
  dialect: DialectName = 'postgres',
): void {
  const above = highs.filter((entry) => entry.high !== null && entry.high >= floor);
  if (above.length === 0) return;
  const list = above.map((entry) => `${display(entry.table, dialect)} ${entry.what} ${entry.high}`).join('; ');
  throw new SheafError(
    'KEYS_ABOVE_FLOOR',
    `${list}: at or above ${floor} (the first sheaf id of ${floorTime}); new ids could collide with these rows`,
    {
      details: {
        floor: floor.toString(),
        tables: above.map((entry) => ({ table: display(entry.table, dialect), high: String(entry.high) })),
      },
    },
  );
}
