import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FormatInput, FormatOutput } from './format-common.js';
import { formatDrizzle } from './format-drizzle.js';
import { formatKnex } from './format-knex.js';
import { formatPrisma } from './format-prisma.js';
import { formatSql } from './format-sql.js';

/** The `--format` names, each a function from a migration to files. */
export const formats = { sql: formatSql, prisma: formatPrisma, knex: formatKnex, drizzle: formatDrizzle } as const;

/** A `--format` name. */
export type FormatName = keyof typeof formats;

/** Renders the migration in `format` and writes its files, creating directories; returns what was written. */
export async function writeMigration(format: FormatName, input: FormatInput): Promise<FormatOutput> {
  const output = formats[format](input);
  for (const file of output.files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content);
  }
  return output;
}
