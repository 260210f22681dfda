import { SheafError } from '@sheaf/core';

/**
 * A synchronous source of ids for drizzle's `$defaultFn`: a function, or an object with `nextSync()`
 * returning an id, or `undefined` when it has none in memory.
 *
 * @example
 * const source: SyncIdSource = () => snowflake.next();
 */
export type SyncIdSource = (() => bigint | number | string) | { nextSync(): bigint | number | string | undefined };

/** `source` as a function that returns an id or throws `IDS_UNAVAILABLE`, never `undefined`. */
export function syncIds(source: SyncIdSource | undefined, column: string): () => bigint | number | string {
  if (typeof source === 'function') return source;
  if (source && typeof source.nextSync === 'function') {
    return () => {
      const id = source.nextSync();
      if (id !== undefined) return id;
      throw new SheafError(
        'IDS_UNAVAILABLE',
        `the id source of ${column} has no id in memory and $defaultFn cannot wait for one: ` +
          'await its start()/next() before inserting, or size its buffer for the insert (docs/guides/drizzle.md)',
        { details: { column } },
      );
    };
  }
  throw new SheafError('INVALID_ARGUMENT', `sheafId(${column}) needs ids: a function or an object with nextSync()`, {
    details: { column },
  });
}
