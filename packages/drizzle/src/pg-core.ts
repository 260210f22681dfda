import { nextIdSql } from '@sheaf/core';
import { sql } from 'drizzle-orm';
import { customType } from 'drizzle-orm/pg-core';
import { idColumnConfig, type SheafIdMode, type SheafIdOf, type SheafIdOptions } from './id-mode.js';

/**
 * Options of the PostgreSQL {@link sheafId}.
 *
 * @example
 * const options: PgSheafIdOptions<'string'> = { mode: 'string', shard: 7 };
 */
export interface PgSheafIdOptions<M extends SheafIdMode = 'bigint'> extends SheafIdOptions<M> {
  /** Generate for this logical shard (`sheaf.next_id(shard)`) instead of the database's configured one. */
  readonly shard?: number;
}

/**
 * A `bigint` column whose default is `sheaf.next_id()` (PostgreSQL and PGlite; `install()` first).
 * The database assigns the id, so inserts need no id and `.returning()` reads it back; drizzle-kit
 * emits `DEFAULT sheaf.next_id()` in migrations. Ids read as bigints (default), strings, or numbers
 * (`mode: 'number'` with `layout: 'js53'` only).
 * An id given to an insert is checked by sheaf's rule for explicit ids (1 to the layout's largest,
 * `checkExplicitId`), in comparisons too: drizzle maps both through the column.
 *
 * @example
 * import { pgTable, integer } from 'drizzle-orm/pg-core';
 * import { sheafId } from '@sheaf/drizzle/pg-core';
 *
 * export const orders = pgTable('orders', {
 *   id: sheafId().primaryKey(),
 *   total: integer('total').notNull(),
 * });
 */
export function sheafId<M extends SheafIdMode = 'bigint'>(options?: PgSheafIdOptions<M>): ReturnType<typeof build<M>>;
export function sheafId<M extends SheafIdMode = 'bigint'>(
  name: string,
  options?: PgSheafIdOptions<M>,
): ReturnType<typeof build<M>>;
export function sheafId<M extends SheafIdMode = 'bigint'>(
  nameOrOptions?: string | PgSheafIdOptions<M>,
  maybeOptions?: PgSheafIdOptions<M>,
) {
  const [name, options] = typeof nameOrOptions === 'string' ? [nameOrOptions, maybeOptions] : ['', nameOrOptions];
  return build<M>(name, options ?? {});
}

function build<M extends SheafIdMode>(name: string, options: PgSheafIdOptions<M>) {
  const column = idColumn<M>(name, options, true);
  return column.default(sql.raw(nextIdSql(options.shard)));
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
