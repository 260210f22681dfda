import { uninstall, uninstallScript } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { databaseOf, describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { readInstalledState } from '../installed-state.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const uninstallCommand = defineCommand({
  name: 'uninstall',
  summary: 'remove sheaf from a database',
  help: `
Usage: sheaf uninstall [--url <url>] [--force] [--print | --json]

Removes sheaf's schema (PostgreSQL) or its sheaf_* tables and routines (MySQL/MariaDB). Refuses
while column defaults, views or triggers outside sheaf still use it, naming them, unless --force.
Does nothing where sheaf is not installed.

Options:
${urlHelp}
  --force            also drop what depends on sheaf (column defaults, views, triggers)
  --print            write the SQL instead of running it (the --force form); never connects
  --json             print the result as JSON
  -h, --help         show this help
`,
  options: { ...urlOption, force: { type: 'boolean' }, print: { type: 'boolean' }, json: { type: 'boolean' } },
  async run(args, io) {
    const target = targetOf(args, io);
    if (flag(args, 'print')) {
      if (flag(args, 'json')) throw new UsageError('--print and --json cannot be combined');
      io.out(uninstallScript(target.dialect, { database: databaseOf(target) }));
      return;
    }
    const wasInstalled = await withConnection(target, { create: false }, async (executor) => {
      const state = await readInstalledState(executor);
      await uninstall(executor, { force: flag(args, 'force') });
      return state !== undefined;
    });
    if (flag(args, 'json')) {
      io.out(toJson({ uninstalled: wasInstalled, dialect: target.dialect }));
      return;
    }
    io.out(
      wasInstalled
        ? `removed sheaf from ${describeTarget(target)}\n`
        : `sheaf is not installed on ${describeTarget(target)}; nothing to do\n`,
    );
  },
});
