import { join } from 'node:path';
import { clientScript } from './client-script.js';
import { type FormatInput, type FormatOutput, headerLines, stepTexts, timestampOf } from './format-common.js';

/**
 * The migration as one SQL script, statements separated by blank lines, with no client commands
 * (what Prisma's migrate engine sends, and what the CLI prints); a transaction where the server has one.
 */
export function sqlText(input: FormatInput, withTransaction: boolean): string {
  const header = headerLines(input).map((line) => `-- ${line}`);
  const body = stepTexts(input.migration);
  const wrapped = withTransaction && input.migration.transactional ? ['begin;', ...body, 'commit;'] : body;
  return `${header.join('\n')}\n\n${wrapped.join('\n\n')}\n`;
}

/**
 * `--format sql`: `<out>/<timestamp>_sheaf_ids.sql` for the server's command-line client: wrapped in
 * `begin` / `commit` for psql, with DELIMITER around the triggers for mysql/mariadb (clientScript).
 *
 * @example
 * formatSql({ migration, inspection, out: 'migrations', now: new Date() }).files[0].path;
 */
export function formatSql(input: FormatInput): FormatOutput {
  const path = join(input.out, `${timestampOf(input.now)}_sheaf_ids.sql`);
  return { files: [{ path, content: clientScript(input) }], notes: [] };
}
