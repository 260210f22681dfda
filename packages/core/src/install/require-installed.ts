import type { DialectName } from '../dialects/dialect.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import { notInstalled } from '../not-installed.js';

/** One row: the database's name, and whether sheaf's generator function exists in it. */
const probes: Record<DialectName, { readonly sql: string; readonly object: string }> = {
  postgres: {
    sql: "select current_database() as db, to_regprocedure('sheaf.next_id()') is not null as installed",
    object: 'sheaf.next_id',
  },
  mysql: {
    sql: `select database() as db, exists (select 1 from information_schema.routines where routine_schema = database()
      and routine_type = 'FUNCTION' and routine_name = 'sheaf_next_id') as installed`,
    object: 'sheaf_next_id',
  },
};

/**
 * Resolves when sheaf is installed in the database (its generator, `sheaf.next_id()` /
 * `sheaf_next_id()`, exists); rejects with NOT_INSTALLED naming the database otherwise. Run it
 * before creating a sheaf trigger yourself: MySQL and MariaDB look up the routines a trigger calls
 * only when it fires, so a trigger created before `install()` fails on the first insert instead.
 *
 * @example
 * await requireInstalled(pool);
 * await pool.query(sheafTriggerSql('orders', 'id', { database: 'shop' }).create);
 */
export async function requireInstalled(db: Database): Promise<void> {
  const executor = executorOf(db, 'requireInstalled');
  const probe = probes[executor.dialect.name];
  const [row] = await executor.query<{ db: unknown; installed: unknown }>(probe.sql);
  const installed = row?.installed;
  if (installed === true || installed === 1 || installed === '1' || installed === 1n) return;
  const database = typeof row?.db === 'string' ? row.db : undefined;
  throw notInstalled(database, `function ${probe.object}() does not exist`, { object: probe.object });
}
