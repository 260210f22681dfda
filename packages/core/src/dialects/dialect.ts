/** The SQL dialects sheaf installs into. MariaDB is served by the `mysql` dialect. */
export type DialectName = 'postgres' | 'mysql';

/**
 * What a server can do, as flags: code asks for a capability instead of comparing dialect names.
 *
 * @example
 * if (executor.dialect.transactionalDdl) await session.query('begin');
 */
export interface Dialect {
  readonly name: DialectName;
  /** DDL inside a transaction is rolled back with it (PostgreSQL), instead of committing implicitly. */
  readonly transactionalDdl: boolean;
  /** `insert … returning` is available to read back generated keys. */
  readonly returning: boolean;
  /** A column `default` may call a user function (PostgreSQL); otherwise a trigger assigns ids. */
  readonly functionDefaults: boolean;
  /** The placeholder for the 1-based parameter `index`. */
  placeholder(index: number): string;
  /** Quotes an identifier so any name, even `a"; drop table x; --`, is taken literally. */
  quoteIdent(name: string): string;
}
