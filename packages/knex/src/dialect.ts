import { type Dialect, mysqlDialect, postgresDialect, SheafError } from '@sheaf/core';

/** The part of a knex client that sheaf reads: its dialect name (`postgresql`, `mysql2`, …). */
export interface KnexClientLike {
  readonly dialect?: string;
  readonly config?: { readonly client?: unknown };
}

const postgresNames = /^(postgres|postgresql|pg|pglite|cockroachdb|pgnative)$/;
const mysqlNames = /^(mysql|mysql2|mariadb)$/;

/** The sheaf dialect of a knex client; `UNSUPPORTED_DIALECT` for the others (SQLite, MSSQL, …). */
export function dialectOfClient(client: KnexClientLike): Dialect {
  const name = String(client.dialect ?? client.config?.client ?? '');
  if (postgresNames.test(name)) return postgresDialect;
  if (mysqlNames.test(name)) return mysqlDialect;
  throw new SheafError(
    'UNSUPPORTED_DIALECT',
    `sheaf supports PostgreSQL and MySQL/MariaDB, not knex dialect "${name}"`,
    {
      details: { dialect: name },
    },
  );
}
