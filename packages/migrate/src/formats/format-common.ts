import type { Inspection, Migration, MigrationStep } from '../model.js';
import { oneLine } from '../one-line.js';

/** A file a format writes, by its path under `--out`. */
export interface MigrationFile {
  readonly path: string;
  readonly content: string;
}

/** What a format produced: its files, and what the user must still do by hand (schema edits). */
export interface FormatOutput {
  readonly files: readonly MigrationFile[];
  readonly notes: readonly string[];
}

/** What every format is given. */
export interface FormatInput {
  readonly migration: Migration;
  readonly inspection: Inspection;
  /** The `--out` directory. */
  readonly out: string;
  /** The generation time: file names and headers. */
  readonly now: Date;
}

const serverNames = { postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB' } as const;

/** The header comment lines every format starts with (without the comment marker). */
export function headerLines({ migration, now }: FormatInput): string[] {
  const how = migration.transactional
    ? 'in one transaction'
    : 'one statement at a time (the server commits each DDL statement): take a backup first';
  return [
    `sheaf migrate: integer keys to sheaf ids (${serverNames[migration.dialect]}), generated ${now.toISOString()}.`,
    `Existing ids are kept; new rows get sheaf ids. ${migration.steps.length} statements, to run ${how}.`,
    'Irreversible once committed: see docs/migrating-existing-tables.md for rolling back.',
  ];
}

/** Each step as its description in a comment, then the statement and its end: a semicolon unless `end` says otherwise. */
export function stepTexts(migration: Migration, end: (step: MigrationStep) => string = () => ';'): string[] {
  return migration.steps.map(
    (step, index) => `-- [${index + 1}/${migration.steps.length}] ${oneLine(step.describe)}\n${step.sql}${end(step)}`,
  );
}

/** `YYYYMMDDHHMMSS` in UTC: the prefix Prisma and Knex give migration names. */
export function timestampOf(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
