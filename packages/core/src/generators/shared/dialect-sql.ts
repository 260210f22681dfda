import type { DialectName } from '../../dialects/dialect.js';
import { SheafError } from '../../errors.js';
import type { SqlExecutor } from '../../executor.js';

/** The statements one generator runs, per dialect: the one place where a dialect is added. */
export type DialectSql<Q> = Partial<Record<DialectName, Q>>;

/**
 * The statements for `executor`'s dialect; `UNSUPPORTED_DIALECT` when there are none yet. Public
 * entry points turn what they were given into an executor first (`executorOf`).
 */
export function sqlFor<Q>(executor: SqlExecutor, table: DialectSql<Q>, generator: string): Q {
  const name = executor.dialect.name;
  const queries = table[name];
  if (queries !== undefined) return queries;
  const known = Object.keys(table).join(', ');
  throw new SheafError('UNSUPPORTED_DIALECT', `${generator} has no SQL for dialect ${name} yet (supported: ${known})`, {
    details: { generator, dialect: name, supported: Object.keys(table) },
  });
}
