import type { Dialect } from './dialect.js';

/**
 * MySQL 8 and MariaDB 10.11. `returning` is off because MySQL 8 lacks it (MariaDB has it).
 *
 * @example
 * mysqlDialect.quoteIdent('order'); // '`order`'
 */
export const mysqlDialect: Dialect = Object.freeze({
  name: 'mysql',
  transactionalDdl: false,
  returning: false,
  functionDefaults: false,
  placeholder: () => '?',
  quoteIdent: (name: string) => `\`${name.replaceAll('`', '``')}\``,
});
