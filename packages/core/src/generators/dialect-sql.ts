import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { formatArgument, typeName } from '../format.js';

/** The statements one generator runs, per dialect: the one place where a dialect is added. */
export type DialectSql<Q> = Partial<Record<DialectName, Q>>;

/**
 * The statements for `executor`'s dialect; `UNSUPPORTED_DIALECT` when there are none yet, and
 * `INVALID_ARGUMENT` for something that is no executor (a raw pool, null).
 */
export function sqlFor<Q>(executor: SqlExecutor, table: DialectSql<Q>, generator: string): Q {
  const { query, dialect } = (executor ?? {}) as Partial<SqlExecutor>;
  if (typeof query !== 'function' || typeof dialect?.name !== 'string') {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `${generator} needs an executor (pgExecutor(pool), mysql2Executor(pool), …), not ${formatArgument(executor)}`,
      { details: { generator, type: typeName(executor) } },
    );
  }
  const name = dialect.name;
  const queries = table[name];
  if (queries !== undefined) return queries;
  const known = Object.keys(table).join(', ');
  throw new SheafError('UNSUPPORTED_DIALECT', `${generator} has no SQL for dialect ${name} yet (supported: ${known})`, {
    details: { generator, dialect: name, supported: Object.keys(table) },
  });
}
