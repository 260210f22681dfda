import { install, installScript, type Layout } from '@sheaf/core';
import { type Args, count, flag, layoutOption, text } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { readInstalledState } from '../installed-state.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const installCommand = defineCommand({
  name: 'install',
  summary: 'install or upgrade sheaf in a database and set its shard and layout',
  help: `
Usage: sheaf install [--url <url>] [--shard N] [--layout <preset>] [--print | --json]

Installs or upgrades sheaf's SQL, then sets the shard and layout. Idempotent: run it again to
upgrade or to change the shard; the layout is fixed once ids were issued. Without --shard or
--layout an installed database keeps the shard and layout it has.

Options:
${urlHelp}
  --shard N          the shard id this database issues ids for (default: as configured, 0 on a
                     fresh install)
  --layout <preset>  sheaf, instagram, … (default: as configured, sheaf on a fresh install)
  --print            write the SQL for a database without sheaf instead of applying it; never
                     connects, so --url only names the dialect (e.g. --url postgres://)
  --json             print the result as JSON
  -h, --help         show this help
`,
  options: {
    ...urlOption,
    shard: { type: 'string' },
    layout: { type: 'string' },
    print: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    const target = targetOf(args, io);
    const options = installOptions(args);
    if (flag(args, 'print')) {
      if (flag(args, 'json')) throw new UsageError('--print and --json cannot be combined');
      io.out(installScript(target.dialect, options).sql);
      return;
    }
    const { result, state } = await withConnection(target, { create: true }, async (executor) => {
      const result = await install(executor, options);
      return { result, state: await readInstalledState(executor) };
    });
    const summary = { ...result, shard: state?.shard, layout: state?.layout.name, dialect: target.dialect };
    if (flag(args, 'json')) {
      io.out(toJson(summary));
      return;
    }
    const applied = result.applied.length > 0 ? `applied ${result.applied.join(', ')}` : 'already up to date';
    io.out(
      `sheaf SQL version ${result.version} on ${describeTarget(target)} (${applied}): ` +
        `shard ${summary.shard}, layout ${summary.layout}\n`,
    );
  },
});

// Left out, shard and layout stay as the database has them (install() reads them there).
function installOptions(args: Args): { shard?: number; layout?: Layout } {
  const shard = text(args, 'shard');
  return {
    ...(shard === undefined ? {} : { shard: count('shard', shard) }),
    ...(text(args, 'layout') === undefined ? {} : { layout: layoutOption(args) }),
  };
}
