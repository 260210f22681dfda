import type { DialectName, SqlExecutor } from '@sheaf/core';
import { type FormatName, formats } from '@sheaf/migrate';
import { type Args, flag, text, texts } from '../args.js';
import { defineCommand } from '../command.js';
import { targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import type { Io } from '../io.js';
import { failpointOf } from '../migrate/failpoint.js';
import { runAbort, runStatus } from '../migrate/journal-commands.js';
import { UsageError } from '../usage-error.js';
import { type MigrateOptions, runMigrate } from './run-migrate.js';

export const migrateCommand = defineCommand({
  name: 'migrate',
  summary: 'move existing tables with integer keys onto sheaf ids (plan, migration files, or apply)',
  help: `
Usage: sheaf migrate [--url <url>] (--table <name>... | --all) [--format sql|prisma|knex|drizzle]
                     [--out <dir>] [--apply] [--online] [--no-auto-increment] [--json]
       sheaf migrate [--url <url>] (--status | --abort) [--json]

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
                     verifying row counts and checksums of every touched table before and after;
                     MySQL/MariaDB: journaled in sheaf_<database>.sheaf_migrations, and run again
                     after an interruption it resumes (Ctrl-C stops after the running statement,
                     exit 130)
  --status           where the latest migration stands (MySQL/MariaDB journal; PostgreSQL --online)
  --abort            MySQL/MariaDB: undo the unfinished migration's finished steps, last first
  --online           PostgreSQL: add bigint columns, backfill in batches, then swap, so no lock is
                     held for long; resumable (run the same command again after an interruption)
  --no-auto-increment
                     MySQL/MariaDB: end the keys as bigint not null default 0, filled by the trigger,
                     without AUTO_INCREMENT (drizzle's $returningId() needs that; a driver's insertId
                     is then 0), also on tables sheaf's trigger keys already; default: AUTO_INCREMENT
                     stays, and a one-row insert's insertId is the sheaf id
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
    status: { type: 'boolean' },
    abort: { type: 'boolean' },
    online: { type: 'boolean' },
    'no-auto-increment': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    const target = targetOf(args, io);
    // A malformed fail point is refused before connecting, whatever the run would have done.
    failpointOf(io.env);
    const journal = journalCommand(args, target.dialect);
    if (journal) return withConnection(target, { create: false }, (executor) => journal(executor, io));
    const options = migrateOptions(args);
    if (options.online && target.dialect !== 'postgres') throw new UsageError('--online is PostgreSQL only');
    if (!options.autoIncrement && target.dialect !== 'mysql') {
      throw new UsageError('--no-auto-increment is MySQL/MariaDB only: PostgreSQL keys have no AUTO_INCREMENT');
    }
    await withConnection(target, { create: false }, (executor) => runMigrate(executor, options, io));
  },
});

/** `--status` or `--abort`, which take no tables and no other flag but --json; undefined for neither. */
function journalCommand(args: Args, dialect: DialectName) {
  const status = flag(args, 'status');
  const abort = flag(args, 'abort');
  if (!status && !abort) return undefined;
  const name = status ? '--status' : '--abort';
  const others = ['table', 'all', 'format', 'out', 'apply', 'online', 'no-auto-increment', 'status', 'abort'].filter(
    (other) => other !== name.slice(2) && args.values[other] !== undefined,
  );
  if (others.length > 0) {
    throw new UsageError(`${name} takes no other flag but --url and --json (got --${others.join(', --')})`);
  }
  if (abort && dialect !== 'mysql') {
    throw new UsageError(
      '--abort is MySQL/MariaDB only: on PostgreSQL --apply is one transaction and leaves nothing to undo (--online: see docs/migrating-existing-tables.md)',
    );
  }
  const json = flag(args, 'json');
  return (executor: SqlExecutor, io: Io) => (status ? runStatus(executor, json, io) : runAbort(executor, json, io));
}

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
    autoIncrement: !flag(args, 'no-auto-increment'),
    json: flag(args, 'json'),
  };
}
