import { install, installScript, type Layout } from '@sheaf/core';
import { type Args, count, flag, layoutOption, text } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const installCommand = defineCommand({
  name: 'install',
  summary: 'install or upgrade sheaf in a database and set its shard and layout',
  help: `
Usage: sheaf install [--url <url>] [--shard N] [--layout <preset>] [--print | --json]

Installs or upgrades sheaf's SQL, then sets the shard and layout. Idempotent: run it again to
upgrade or to change the shard; the layout is fixed once ids were issued.

Options:
${urlHelp}
  --shard N          the shard id this database issues ids for (default 0)
  --layout <preset>  sheaf, instagram, … (default sheaf)
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
    const result = await withConnection(target, { create: true }, (executor) => install(executor, options));
    const summary = { ...result, shard: options.shard, layout: options.layout.name, dialect: target.dialect };
    if (flag(args, 'json')) {
      io.out(toJson(summary));
      return;
    }
    const applied = result.applied.length > 0 ? `applied ${result.applied.join(', ')}` : 'already up to date';
    io.out(
      `sheaf SQL version ${result.version} on ${describeTarget(target)} (${applied}): ` +
        `shard ${options.shard}, layout ${options.layout.name}\n`,
    );
  },
});

function installOptions(args: Args): { shard: number; layout: Layout } {
  const raw = text(args, 'shard');
  return { shard: raw === undefined ? 0 : count('shard', raw), layout: layoutOption(args) };
}
