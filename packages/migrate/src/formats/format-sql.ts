import { join } from 'node:path';
import { clientScript } from './client-script.js';
import { type FormatInput, type FormatOutput, headerLines, stepTexts, timestampOf } from './format-common.js';

/**
 * The migration as one SQL script, statements separated by blank lines, with no client commands and
 * no transaction of its own: what Prisma's migrate engine sends as one query (which PostgreSQL runs as
 * one transaction).
 */
export function sqlText(input: FormatInput): string {
  const header = headerLines(input).map((line) => `-- ${line}`);
  return `${header.join('\n')}\n\n${stepTexts(input.migration).join('\n\n')}\n`;
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
