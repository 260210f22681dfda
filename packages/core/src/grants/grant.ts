import type { DialectName } from '../dialects/dialect.js';
import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import { inState } from '../install/mysql-state.js';
import { sqlVersion } from '../install/script.js';
import { mysqlAppGrants } from './mysql.js';
import { postgresAppGrants } from './postgres.js';

/**
 * What {@link grant} takes.
 *
 * @example
 * const options: GrantOptions = { dryRun: true };
 */
export interface GrantOptions {
  /** Only return the statements; change nothing. */
  readonly dryRun?: boolean;
}

/**
 * What {@link grant} did.
 *
 * @example
 * const { statements }: GrantResult = await grant(executor, 'app', { dryRun: true });
 */
export interface GrantResult {
  /** The statements, in order. */
  readonly statements: readonly string[];
  /** False for a dry run. */
  readonly applied: boolean;
}

interface DialectGrants {
  /** One row, `version`: the highest sheaf SQL file installed (run once installed). */
  readonly version: string;
  /** Checks the grantee against the database and returns the statements (docs/security.md). */
  statements(session: SqlExecutor, grantee: string): Promise<string[]>;
  /** Runs them as one unit where DDL is transactional. */
  readonly transactional: boolean;
}

const dialects: Partial<Record<DialectName, DialectGrants>> = {
  postgres: {
    transactional: true,
    version: 'select max(version) as version from sheaf.schema_versions',
    async statements(session, role) {
      const statements = postgresAppGrants(role);
      const [row] = await session.query<{ installed: unknown; exists: unknown; owner: unknown }>(
        `select to_regnamespace('sheaf') is not null as installed,
          exists (select from pg_roles where rolname = $1) as exists,
          exists (select from pg_namespace n join pg_roles r on r.oid = n.nspowner
            where n.nspname = 'sheaf' and r.rolname = $1) as owner`,
        [role],
      );
      if (row?.installed !== true) throw notInstalled();
      if (row.exists !== true) {
        throw new SheafError('INVALID_ARGUMENT', `role ${JSON.stringify(role)} does not exist`, { details: { role } });
      }
      if (row.owner === true) {
        throw new SheafError(
          'INVALID_ARGUMENT',
          `role ${JSON.stringify(role)} owns schema sheaf; grant application privileges to another role`,
          { details: { role } },
        );
      }
      return statements;
    },
  },
  // No transactional DDL: each GRANT applies on its own, and granting again changes nothing.
  mysql: {
    transactional: false,
    version: 'select max(version) as version from {state}.sheaf_schema_versions',
    async statements(session, account) {
      const [row] = await session.query<{ name: unknown; installed: unknown }>(
        `select database() as name, (select count(*) from information_schema.tables
          where table_schema in (database(), concat('sheaf_', database()))
            and table_name = 'sheaf_schema_versions') as installed`,
      );
      if (Number(row?.installed ?? 0) === 0) throw notInstalled();
      return mysqlAppGrants(account, String(row?.name));
    },
  },
};

/**
 * Gives a database role (PostgreSQL) or account (`user@host`, MySQL/MariaDB) exactly the privileges
 * an application needs: taking ids, tickets, segments and worker leases, and decoding; nothing that
 * configures sheaf or touches its tables. On PostgreSQL whatever the role had on schema sheaf is
 * revoked first, in the same transaction. See docs/security.md.
 *
 * @example
 * await grant(pgExecutor(pool), 'app');                       // as the owner of schema sheaf
 * const { statements } = await grant(executor, 'app', { dryRun: true });
 */
export async function grant(db: Database, grantee: string, options: GrantOptions = {}): Promise<GrantResult> {
  const executor = executorOf(db, 'grant');
  const dialect = dialects[executor.dialect.name];
  if (!dialect) {
    throw new SheafError('UNSUPPORTED_DIALECT', `cannot grant sheaf privileges on ${executor.dialect.name}`);
  }
  return executor.session(async (session) => {
    const statements = await dialect.statements(session, grantee);
    await checkUpToDate(session, dialect);
    if (options.dryRun) return { statements, applied: false };
    if (dialect.transactional) await session.query('begin');
    try {
      for (const statement of statements) await session.query(statement);
      if (dialect.transactional) await session.query('commit');
    } catch (error) {
      if (dialect.transactional) await session.query('rollback');
      throw error;
    }
    return { statements, applied: true };
  });
}

/** The grants name every function of this package's SQL: an older install lacks some. */
async function checkUpToDate(session: SqlExecutor, dialect: DialectGrants): Promise<void> {
  const [row] = await session.query<{ version: unknown }>((await inState(session, dialect)).version);
  const installed = Number(row?.version ?? 0);
  const needed = sqlVersion(session.dialect.name);
  if (installed < needed) {
    throw new SheafError(
      'NOT_INSTALLED',
      `sheaf SQL version ${installed} is installed, this package grants on version ${needed}: run \`sheaf install\` first`,
      { details: { installed, needed } },
    );
  }
}

function notInstalled(): SheafError {
  return new SheafError('NOT_INSTALLED', 'sheaf is not installed in this database: run `sheaf install` first');
}
