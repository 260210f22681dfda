import { join } from 'node:path';
import { oneLine } from '../one-line.js';
import { type FormatInput, type FormatOutput, headerLines, timestampOf } from './format-common.js';
import { knexRawText } from './knex-escape.js';

/**
 * `--format knex`: `<out>/<timestamp>_sheaf_ids.cjs` for `knex migrate:latest`. `up` runs each
 * statement through `knex.raw` — inside knex's migration transaction on PostgreSQL, outside one on
 * MySQL, where DDL cannot be rolled back — and `down` refuses: the old sequences cannot come back.
 *
 * @example
 * formatKnex({ migration, inspection, out: 'migrations', now: new Date() }).files[0].path;
 */
export function formatKnex(input: FormatInput): FormatOutput {
  const { migration } = input;
  // knex turns `?` into a placeholder on PostgreSQL unless escaped; MySQL sends raw SQL as it is.
  const escapeMarks = (sql: string) => (migration.dialect === 'postgres' ? knexRawText(sql) : sql);
  const statements = migration.steps.map(
    (step) => `  // ${oneLine(step.describe)}\n  ${JSON.stringify(escapeMarks(step.sql))},`,
  );
  const content = `${headerLines(input)
    .map((line) => `// ${line}`)
    .join('\n')}
'use strict';

const statements = [
${statements.join('\n')}
];

exports.up = async function up(knex) {
  for (const sql of statements) await knex.raw(sql);
};

exports.down = async function down() {
  throw new Error('sheaf_ids is irreversible: restore from a backup taken before it (docs/migrating-existing-tables.md)');
};
${migration.transactional ? '' : '\n// DDL commits as it runs on MySQL/MariaDB: a transaction would only hide that.\nexports.config = { transaction: false };\n'}`;
  return { files: [{ path: join(input.out, `${timestampOf(input.now)}_sheaf_ids.cjs`), content }], notes: [] };
}
