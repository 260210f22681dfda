import { type FormatName, formats } from '@sheaf/migrate';
import { type Args, flag, text, texts } from '../args.js';
import { defineCommand } from '../command.js';
import { targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { UsageError } from '../usage-error.js';
import { type MigrateOptions, runMigrate } from './run-migrate.js';

export const migrateCommand = defineCommand({
  name: 'migrate',
  summary: 'move existing tables with integer keys onto sheaf ids (plan, migration files, or apply)',
  help: `
Usage: sheaf migrate [--url <url>] (--table <name>... | --all) [--format sql|prisma|knex|drizzle]
                     [--out <dir>] [--apply] [--online] [--json]

Inspects the tables' primary keys, their sequences / identities / AUTO_INCREMENT and every column
referencing them (composite and self-referencing foreign keys included), with the views, triggers
and indexes around those columns; prints the plan and the SQL that turns them into bigint keys
assigned by sheaf. Existing ids are kept (refused when any is at or above the first sheaf id).

Options:
${urlHelp}
  --table <name>     a table to migrate, as name or schema.name, exact case; repeat for more
  --all              every table whose key sheaf can take (others are listed as skipped)
  --format <format>  the files --out writes: sql (default), prisma, knex or drizzle
  --out <dir>        write the migration files there instead of printing the SQL
  --apply            run the migration now (one transaction on PostgreSQL), with progress on stderr,
                     verifying row counts and checksums of every touched table before and after
  --online           PostgreSQL: add bigint columns, backfill in batches, then swap, so no lock is
                     held for long; resumable (run the same command again after an interruption)
  --json             print the plan (and what --out and --apply did) as JSON
  -h, --help         show this help

See docs/migrating-existing-tables.md.
`,
  options: {
    ...urlOption,
    table: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    format: { type: 'string' },
    out: { type: 'string' },
    apply: { type: 'boolean' },
    online: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    const target = targetOf(args, io);
    const options = migrateOptions(args);
    if (options.online && target.dialect !== 'postgres') throw new UsageError('--online is PostgreSQL only');
    await withConnection(target, { create: false }, (executor) => runMigrate(executor, options, io));
  },
});

function migrateOptions(args: Args): MigrateOptions {
  const tables = texts(args, 'table');
  const all = flag(args, 'all');
  if (all && tables.length > 0) throw new UsageError('--table and --all cannot be combined');
  if (!all && tables.length === 0) throw new UsageError('name the tables: --table <name> (repeatable) or --all');
  const format = text(args, 'format') ?? 'sql';
  if (!(format in formats)) {
    throw new UsageError(`--format must be one of ${Object.keys(formats).join(', ')}, not "${format}"`);
  }
  const out = text(args, 'out');
  if (text(args, 'format') !== undefined && out === undefined) throw new UsageError('--format needs --out <dir>');
  const online = flag(args, 'online');
  if (online && out !== undefined) throw new UsageError('--online runs the migration itself: drop --out and --format');
  return {
    selection: all ? { all: true } : { tables },
    format: format as FormatName,
    out,
    apply: flag(args, 'apply'),
    online,
    json: flag(args, 'json'),
  };
}
