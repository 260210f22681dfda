import { customType } from 'drizzle-orm/mysql-core';
import {
  columnMode,
  fromDriver,
  idColumnConfig,
  type SheafIdMode,
  type SheafIdOf,
  type SheafIdOptions,
} from './id-mode.js';
import { type SyncIdSource, syncIds } from './sync-ids.js';

/**
 * Options of the MySQL/MariaDB {@link sheafId}.
 *
 * @example
 * const options: MySqlSheafIdOptions = { ids: () => snowflake.next() };
 */
export interface MySqlSheafIdOptions<M extends SheafIdMode = 'bigint'> extends SheafIdOptions<M> {
  /**
   * Where ids come from, synchronously (drizzle's `$defaultFn` cannot wait): a function such as
   * `() => snowflake.next()` (`SnowflakeGenerator`), or anything with `nextSync()`
   * (`SegmentGenerator`, `BatchedDbIds`), which must have ids in memory when the insert is built.
   */
  readonly ids: SyncIdSource;
}

/**
 * A `bigint` key filled by `$defaultFn` from an app-side generator (MySQL 8, MariaDB). Column
 * defaults cannot call `sheaf_next_id()` there, and the id must be known before the INSERT for
 * `$returningId()` to return it. Deliberately not `.autoincrement()`: drizzle's `$returningId()`
 * then computes `insertId + i`, which never ends at snowflake magnitudes (2^60 + 1 === 2^60).
 * A sheaf trigger on the same column may stay, for rows inserted by other clients.
 * An id given to an insert is checked by sheaf's rule for explicit ids (1 to the layout's largest,
 * `checkExplicitId`), in comparisons too: drizzle maps both through the column.
 *
 * @example
 * import { mysqlTable, int } from 'drizzle-orm/mysql-core';
 * import { sheafId } from '@sheaf/drizzle/mysql-core';
 *
 * const snowflake = await SnowflakeGenerator.start(executor);
 * export const orders = mysqlTable('orders', {
 *   id: sheafId({ ids: () => snowflake.next() }).primaryKey(),
 *   total: int('total').notNull(),
 * });
 */
export function sheafId<M extends SheafIdMode = 'bigint'>(options: MySqlSheafIdOptions<M>): ReturnType<typeof build<M>>;
export function sheafId<M extends SheafIdMode = 'bigint'>(
  name: string,
  options: MySqlSheafIdOptions<M>,
): ReturnType<typeof build<M>>;
export function sheafId<M extends SheafIdMode = 'bigint'>(
  nameOrOptions: string | MySqlSheafIdOptions<M>,
  maybeOptions?: MySqlSheafIdOptions<M>,
) {
  const [name, options] = typeof nameOrOptions === 'string' ? [nameOrOptions, maybeOptions] : ['', nameOrOptions];
  return build<M>(name, options as MySqlSheafIdOptions<M>);
}

function build<M extends SheafIdMode>(name: string, options: MySqlSheafIdOptions<M>) {
  const next = syncIds(options?.ids, name || 'sheafId');
  const column = idColumn<M>(name, options, true);
  const mode = columnMode(options);
  return column.$defaultFn(() => fromDriver(next(), mode) as SheafIdOf<M>);
}

/**
 * A `bigint` column that holds a sheaf id made elsewhere (a foreign key), with the same modes and
 * driver checks as `sheafId()` and no default.
 *
 * @example
 * orderId: sheafRef('order_id').notNull().references(() => orders.id),
 */
export function sheafRef<M extends SheafIdMode = 'bigint'>(name: string, options: SheafIdOptions<M> = {}) {
  return idColumn<M>(name, options);
}

function idColumn<M extends SheafIdMode>(name: string, options: SheafIdOptions<M>, key = false) {
  return customType<{ data: SheafIdOf<M>; driverData: unknown }>(idColumnConfig(options, key))(name);
}
