import type { Dialect } from './dialect.js';

/**
 * PostgreSQL 13+ and PGlite.
 *
 * @example
 * postgresDialect.quoteIdent('order'); // '"order"'
 */
export const postgresDialect: Dialect = Object.freeze({
  name: 'postgres',
  transactionalDdl: true,
  returning: true,
  functionDefaults: true,
  placeholder: (index: number) => `$${index}`,
  quoteIdent: (name: string) => `"${name.replaceAll('"', '""')}"`,
});
