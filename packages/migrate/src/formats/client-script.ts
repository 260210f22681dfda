import type { DialectName } from '@sheaf/core';
import type { MigrationStep } from '../model.js';
import { type FormatInput, headerLines, stepTexts } from './format-common.js';

/**
 * How each server's command-line client runs the file, and whether it must be told where a
 * statement holding `;` ends: psql finds a statement's end itself, the mysql/mariadb client cuts
 * at every `;` outside quotes, so a trigger body (IF … END IF) needs DELIMITER around it.
 */
const clients = {
  postgres: { run: 'psql -X -v ON_ERROR_STOP=1 -d <database url> -f <this file>', delimiters: false },
  mysql: { run: 'mariadb <database> < <this file> (or mysql)', delimiters: true },
} as const satisfies Record<DialectName, { run: string; delimiters: boolean }>;

/** Ends a compound statement between the DELIMITER lines; the client ignores it inside quotes. */
const delimiter = '$$';

/** Quoted names and string constants, inside which the client does not look for `;`. */
const quoted = /`(?:[^`]|``)*`|'(?:[^'\\]|''|\\[\s\S])*'|"(?:[^"\\]|""|\\[\s\S])*"/g;

/** A statement the mysql client would cut short: one holding a `;` of its own (a trigger body). */
const isCompound = (step: MigrationStep) => step.sql.replace(quoted, '').includes(';');

/**
 * The migration as a script for the server's command-line client (`--format sql`): a header saying
 * how to run it, then each step with its `-- [n/N]` comment, in `begin` / `commit` where DDL is
 * transactional. For mysql/mariadb, each run of compound statements sits between `delimiter $$` and
 * `delimiter ;`: only that client knows DELIMITER, so the formats drivers run (knex, drizzle,
 * Prisma) never hold it.
 *
 * @example
 * clientScript({ migration, inspection, out: '.', now: new Date() }); // '-- sheaf migrate: …'
 */
export function clientScript(input: FormatInput): string {
  const { migration } = input;
  const client = clients[migration.dialect];
  const run = client.delimiters
    ? `${client.run}. The DELIMITER lines are for that client: drivers cannot run this file (use --format knex, drizzle or prisma, or sheaf migrate --apply).`
    : `${client.run}.`;
  const header = [...headerLines(input), `Run with: ${run}`].map((line) => `-- ${line}`);
  const body = client.delimiters ? delimited(migration.steps, stepTexts(migration, ends)) : stepTexts(migration);
  const wrapped = migration.transactional ? ['begin;', ...body, 'commit;'] : body;
  return `${header.join('\n')}\n\n${wrapped.join('\n\n')}\n`;
}

const ends = (step: MigrationStep) => (isCompound(step) ? delimiter : ';');

/** The step texts with `delimiter $$` before each run of compound steps and `delimiter ;` after it. */
function delimited(steps: readonly MigrationStep[], texts: readonly string[]): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const [index, text] of texts.entries()) {
    const compound = isCompound(steps[index] as MigrationStep);
    if (compound !== inBlock) out.push(`delimiter ${compound ? delimiter : ';'}`);
    inBlock = compound;
    out.push(text);
  }
  if (inBlock) out.push('delimiter ;');
  return out;
}
