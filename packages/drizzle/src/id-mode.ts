import { checkExplicitId, type Layout, layoutByName, type PresetName, parseId, SheafError } from '@sheaf/core';

/**
 * How a sheaf id column reads in TypeScript: `'bigint'` (default, any layout), `'string'` (decimal
 * text, JSON-safe), or `'number'` (only with a layout whose ids stay below 2^53, i.e. `js53`).
 *
 * @example
 * const mode: SheafIdMode = 'string';
 */
export type SheafIdMode = 'bigint' | 'string' | 'number';

/**
 * The TypeScript type of an id in mode `M`.
 *
 * @example
 * const id: SheafIdOf<'string'> = '1844674407370955161';
 */
export type SheafIdOf<M extends SheafIdMode> = M extends 'string' ? string : M extends 'number' ? number : bigint;

/**
 * Options of the `sheafId()` column builders.
 *
 * @example
 * const options: SheafIdOptions<'number'> = { mode: 'number', layout: 'js53' };
 */
export interface SheafIdOptions<M extends SheafIdMode = 'bigint'> {
  /** `'bigint'` (default), `'string'`, or `'number'` (needs `layout: 'js53'` or another layout of safe integers). */
  readonly mode?: M;
  /** The layout of the ids (default `sheaf`): checks ids read back and gates the `'number'` mode. */
  readonly layout?: Layout | PresetName;
}

/** The layout and mode of a column, checked once when the schema is defined. */
export interface ColumnMode {
  readonly mode: SheafIdMode;
  readonly layout: Layout;
}

export function columnMode(options: SheafIdOptions<SheafIdMode> = {}): ColumnMode {
  const mode = options.mode ?? 'bigint';
  const layout =
    typeof options.layout === 'string' ? layoutByName(options.layout) : (options.layout ?? layoutByName('sheaf'));
  if (mode !== 'bigint' && mode !== 'string' && mode !== 'number') {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `sheafId mode must be 'bigint', 'string' or 'number', not ${String(mode)}`,
      {
        details: { mode },
      },
    );
  }
  if (mode === 'number' && !layout.safeIntegerIds) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `sheafId mode 'number' needs a layout whose ids fit 2^53 − 1 (js53); layout "${layout.name}" reaches ${layout.maxId}`,
      { details: { mode, layout: layout.name, maxId: layout.maxId.toString() } },
    );
  }
  return { mode, layout };
}

/**
 * A driver value as the column's mode. A JavaScript number above 2^53 − 1 means the driver already
 * rounded the id (mysql2 without `supportBigNumbers`/`bigNumberStrings`): refused, never passed on.
 */
export function fromDriver(value: unknown, { mode, layout }: ColumnMode): bigint | string | number {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new SheafError(
      'INVALID_ID',
      `id ${value} came back from the driver as a rounded number: create the mysql2 pool with ` +
        '{ supportBigNumbers: true, bigNumberStrings: true } (see docs/guides/drizzle.md)',
      { details: { value } },
    );
  }
  const id = parseId(value as bigint | string | number, layout);
  return mode === 'bigint' ? id : mode === 'string' ? id.toString() : Number(id);
}

/**
 * The column's value as the driver takes it: bigint (exact in pg, PGlite and mysql2 parameters). A
 * key (`sheafId()`) takes sheaf's rule for explicit ids, 1 to the layout's largest: drizzle maps an
 * inserted id through here, and a comparison too (it has no hook for inserts alone), so `where id = 0`
 * is refused as well; a reference (`sheafRef()`) takes any id `parseId` reads.
 */
export function toDriver(value: unknown, { layout }: ColumnMode, key = false): bigint {
  return key ? checkExplicitId(value, layout) : parseId(value as bigint | string | number, layout);
}

/**
 * The driver mapping of a sheaf id column, for drizzle's `customType` of either dialect: checks
 * every value both ways in the column's mode.
 */
export function idColumnConfig<M extends SheafIdMode>(options: SheafIdOptions<M>, key = false) {
  const mode = columnMode(options);
  return {
    dataType: () => 'bigint',
    fromDriver: (value: unknown) => fromDriver(value, mode) as SheafIdOf<M>,
    toDriver: (value: SheafIdOf<M>) => toDriver(value, mode, key),
  };
}
