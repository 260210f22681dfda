import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { display, displayPart } from '../names.js';
import { keptAutoIncrement } from '../plan/key-shapes.js';
import { type FormatInput, type FormatOutput, headerLines, stepTexts } from './format-common.js';

interface JournalEntry {
  idx: number;
  version: string;
  when: number;
  tag: string;
  breakpoints: boolean;
}

interface Journal {
  version: string;
  dialect: string;
  entries: JournalEntry[];
}

/**
 * `--format drizzle`: `<out>/NNNN_sheaf_ids.sql` with `--> statement-breakpoint` between statements,
 * and `<out>/meta/_journal.json` — appended to when `--out` already holds drizzle-kit's migrations —
 * so drizzle's `migrate()` (or `drizzle-kit migrate`) applies it after the existing ones.
 *
 * @example
 * formatDrizzle({ migration, inspection, out: 'drizzle', now: new Date() }).files.map((file) => file.path);
 */
export function formatDrizzle(input: FormatInput): FormatOutput {
  const journalPath = join(input.out, 'meta', '_journal.json');
  const journal: Journal = existsSync(journalPath)
    ? (JSON.parse(readFileSync(journalPath, 'utf8')) as Journal)
    : { version: '7', dialect: input.migration.dialect === 'postgres' ? 'postgresql' : 'mysql', entries: [] };
  const last = journal.entries.at(-1);
  const idx = last ? last.idx + 1 : 0;
  const tag = `${String(idx).padStart(4, '0')}_sheaf_ids`;
  // The migrator applies entries newer than the last one it recorded, so `when` must grow.
  const when = Math.max(input.now.getTime(), (last?.when ?? 0) + 1);
  const entry: JournalEntry = { idx, version: journal.version, when, tag, breakpoints: true };
  const header = headerLines(input).map((line) => `-- ${line}`);
  const sql = `${header.join('\n')}\n${stepTexts(input.migration).join('\n--> statement-breakpoint\n')}\n`;
  return {
    files: [
      { path: join(input.out, `${tag}.sql`), content: sql },
      {
        path: journalPath,
        content: `${JSON.stringify({ ...journal, entries: [...journal.entries, entry] }, null, 2)}\n`,
      },
    ],
    notes: [
      'Change the key columns in your drizzle schema to sheafId() from @sheaf/drizzle (and referencing columns to bigint),',
      'then `drizzle-kit generate` should find nothing left to change.',
      ...returningIdNotes(input),
    ],
  };
}

/**
 * MySQL/MariaDB: drizzle's `$returningId()` counts from the insertId, which a key with
 * AUTO_INCREMENT reports as the id the insert gave (a sheaf id, or a string of one): it throws
 * after the rows are stored, or returns nothing (docs/guides/drizzle.md).
 */
function returningIdNotes({ inspection, migration }: FormatInput): string[] {
  const kept = keptAutoIncrement(inspection, migration);
  if (kept.length === 0) return [];
  const keys = kept.map((key) => `${display(key.table, 'mysql')}.${displayPart(key.column, 'mysql')}`);
  return [
    `${keys.join(', ')} keep${kept.length === 1 ? 's' : ''} AUTO_INCREMENT: drizzle's $returningId() fails there after the rows are stored.`,
    'For drizzle, plan with --no-auto-increment instead, or run `sheaf migrate --table <name> --no-auto-increment --apply` after this one.',
  ];
}
