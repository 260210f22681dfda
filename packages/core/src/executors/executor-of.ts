import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { formatArgument, typeName } from '../format.js';
import { type MariadbConnectionLike, type MariadbPoolLike, mariadbExecutor } from './mariadb.js';
import { type Mysql2ConnectionLike, type Mysql2PoolLike, mysql2Executor } from './mysql2.js';
import { type PgClientLike, type PgPoolLike, pgExecutor } from './pg.js';
import { type PGliteLike, pgliteExecutor } from './pglite.js';

/**
 * What sheaf takes wherever it needs a database: an executor, or a client of a supported driver as
 * the application already has it — a `pg` Pool or Client, a `mysql2` pool or connection (promise or
 * callback API), a `mariadb` pool or connection, a PGlite instance.
 *
 * @example
 * const db: Database = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await install(db, { shard: 1 });
 */
export type Database =
  | SqlExecutor
  | PgPoolLike
  | PgClientLike
  | Mysql2PoolLike
  | Mysql2ConnectionLike
  | MariadbPoolLike
  | MariadbConnectionLike
  | PGliteLike;

/** One executor per client: generators and installs on one pool share it. */
const made = new WeakMap<object, SqlExecutor>();

/**
 * The executor for `db`: `db` itself when it is one, else one over the driver client it is
 * (recognised by the driver's own members, never by importing a driver). INVALID_ARGUMENT, saying
 * what to pass, for anything else.
 *
 * @example
 * const executor = executorOf(new pg.Pool(), 'install'); // same as pgExecutor(pool)
 */
export function executorOf(db: unknown, api: string): SqlExecutor {
  if (isExecutor(db)) return db;
  if (typeof db === 'object' && db !== null) {
    const known = made.get(db);
    if (known) return known;
    const executor = fromClient(db as Record<string, unknown>);
    if (executor) {
      made.set(db, executor);
      return executor;
    }
  }
  throw new SheafError(
    'INVALID_ARGUMENT',
    `${api} needs a database: a pg Pool or Client, a mysql2 or mariadb pool or connection, a PGlite instance, ` +
      `or an executor (pgExecutor(pool), …), not ${formatArgument(db)}`,
    { details: { api, type: typeName(db) } },
  );
}

function isExecutor(db: unknown): db is SqlExecutor {
  const candidate = db as Partial<SqlExecutor> | null | undefined;
  return (
    typeof candidate?.query === 'function' &&
    typeof candidate.session === 'function' &&
    typeof candidate.dialect?.name === 'string'
  );
}

function fromClient(db: Record<string, unknown>): SqlExecutor | undefined {
  if (typeof db.query !== 'function') return undefined;
  // PGlite: `exec` for scripts and `waitReady`, which no network driver has.
  if (typeof db.exec === 'function' && 'waitReady' in db) return pgliteExecutor(db as unknown as PGliteLike);
  // mariadb: `batch` is its own.
  if (typeof db.batch === 'function') return mariadbExecutor(db as unknown as MariadbPoolLike);
  // mysql2's callback API hands out its promise wrapper; the wrapper has `execute` and no `promise`.
  if (typeof db.promise === 'function' && typeof db.execute === 'function') {
    return mysql2Executor((db.promise as () => Mysql2PoolLike).call(db));
  }
  if (typeof db.execute === 'function') return mysql2Executor(db as unknown as Mysql2PoolLike);
  // pg: a Pool counts its clients; a Client (or a pool's client) has its connection parameters.
  if (typeof db.totalCount === 'number' || typeof db.connectionParameters === 'object') {
    return pgExecutor(db as unknown as PgPoolLike);
  }
  return undefined;
}
