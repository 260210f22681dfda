import { join } from 'node:path';
import { type FormatInput, type FormatOutput, headerLines, stepTexts, timestampOf } from './format-common.js';

/** The migration as one SQL file (`psql -f`), statements separated by blank lines; a transaction where the server has one. */
export function sqlText(input: FormatInput, withTransaction: boolean): string {
  const header = headerLines(input).map((line) => `-- ${line}`);
  const body = stepTexts(input.migration);
  const wrapped = withTransaction && input.migration.transactional ? ['begin;', ...body, 'commit;'] : body;
  return `${header.join('\n')}\n\n${wrapped.join('\n\n')}\n`;
}

/**
 * `--format sql`: `<out>/<timestamp>_sheaf_ids.sql`, wrapped in `begin` / `commit` on PostgreSQL.
 *
 * @example
 * formatSql({ migration, inspection, out: 'migrations', now: new Date() }).files[0].path;
 */
export function formatSql(input: FormatInput): FormatOutput {
  const path = join(input.out, `${timestampOf(input.now)}_sheaf_ids.sql`);
  return { files: [{ path, content: sqlText(input, true) }], notes: [] };
}
