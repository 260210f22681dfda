import { install, installScript, type Layout, SheafError, type SqlExecutor } from '@sheaf/core';
import { type Args, count, flag, layoutOption, text } from '../args.js';
import { defineCommand } from '../command.js';
import {
  connect,
  databaseOf,
  describeTarget,
  type Target,
  targetOf,
  urlHelp,
  urlOption,
  withConnection,
} from '../connection.js';
import { ownBinding, readGalera } from '../doctor/galera-reading.js';
import { readInstalledState } from '../installed-state.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const installCommand = defineCommand({
  name: 'install',
  summary: 'install or upgrade sheaf in a database and set its shard and layout',
  help: `
Usage: sheaf install [--url <url>] [--shard N] [--layout <preset>] [--registry <url>]
                    [--native | --no-native] [--moved | --clone] [--print | --json]

Installs or upgrades sheaf's SQL, then sets the shard and layout. Idempotent: run it again to
upgrade or to change the shard; the layout is fixed once ids were issued. Without --shard or
--layout an installed database keeps the shard and layout it has.

Options:
${urlHelp}
  --shard N          the shard id this database issues ids for (default: as configured, 0 on a
                     fresh install)
  --layout <preset>  sheaf, instagram, … (default: as configured, sheaf on a fresh install)
  --registry <url>   the database that holds the id space of several databases: the shard is
                     claimed there first (refused when another database or a worker has it),
                     and application generators lease worker ids there (docs/layout.md)
  --native           PostgreSQL: run next_id() in C, through the extension sheaf_native, which
                     must be installed on the server (docs/native.md); refused if it cannot be
  --no-native        PostgreSQL: run next_id() in PL/pgSQL (and drop the extension)
                     Neither: as chosen before; on a first install, native where it can run
  --moved            PostgreSQL: this database is a copy whose original is gone for good (a
                     restore after losing the server, pg_upgrade): keep its shard, bound to this
                     server now. A copy is otherwise refused until given a --shard of its own
                     (docs/replication.md)
  --clone            PostgreSQL, with --shard: this database is a physical clone of another
                     (pg_basebackup, a restored backup or disk snapshot used to add a server),
                     which no check can tell from its original: make it a database of its own
  --print            write the SQL for a database without sheaf instead of applying it; never
                     connects, so --url only names the dialect (e.g. --url postgres://)
  --json             print the result as JSON
  -h, --help         show this help
`,
  options: {
    ...urlOption,
    shard: { type: 'string' },
    layout: { type: 'string' },
    registry: { type: 'string' },
    native: { type: 'boolean' },
    'no-native': { type: 'boolean' },
    moved: { type: 'boolean' },
    clone: { type: 'boolean' },
    print: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    const target = targetOf(args, io);
    const options = installOptions(args);
    const registryUrl = text(args, 'registry');
    if (flag(args, 'print')) {
      if (flag(args, 'json')) throw new UsageError('--print and --json cannot be combined');
      if (registryUrl !== undefined) throw new UsageError('--print cannot register a shard: drop --registry');
      if (flag(args, 'moved') || flag(args, 'clone')) {
        throw new UsageError('--print cannot bind a database to its server: drop --moved and --clone');
      }
      io.out(installScript(target.dialect, { ...options, database: databaseOf(target) }).sql);
      return;
    }
    const registry =
      registryUrl === undefined ? undefined : targetOf({ values: { url: registryUrl }, positionals: [] }, io);
    const { result, state, nodeShard } = await withConnection(target, { create: true }, (executor) =>
      withRegistry(registry, async (registryExecutor) => {
        const result = await install(executor, registryExecutor ? { ...options, registry: registryExecutor } : options);
        // A Galera node issues the shard bound to it, not the settings row's.
        const galera = target.dialect === 'mysql' ? await readGalera(executor, result.version) : undefined;
        return { result, state: await readInstalledState(executor), nodeShard: galera && ownBinding(galera)?.shard };
      }),
    );
    const summary = {
      ...result,
      shard: nodeShard ?? state?.shard,
      layout: state?.layout.name,
      native: state?.native ?? false,
      dialect: target.dialect,
    };
    if (flag(args, 'json')) {
      io.out(toJson(summary));
      return;
    }
    const applied = result.applied.length > 0 ? `applied ${result.applied.join(', ')}` : 'already up to date';
    io.out(
      `sheaf SQL version ${result.version} on ${describeTarget(target)} (${applied}): ` +
        `shard ${summary.shard}, layout ${summary.layout}${target.dialect === 'postgres' ? `, next_id() in ${summary.native ? 'C (sheaf_native)' : 'PL/pgSQL'}` : ''}\n`,
    );
  },
});

// Left out, shard, layout and path stay as the database has them (install() reads them there).
function installOptions(args: Args): {
  shard?: number;
  layout?: Layout;
  native?: boolean;
  moved?: boolean;
  clone?: boolean;
} {
  const shard = text(args, 'shard');
  if (flag(args, 'native') && flag(args, 'no-native'))
    throw new UsageError('--native and --no-native cannot be combined');
  const native = flag(args, 'native') ? true : flag(args, 'no-native') ? false : undefined;
  return {
    ...(shard === undefined ? {} : { shard: count('shard', shard) }),
    ...(text(args, 'layout') === undefined ? {} : { layout: layoutOption(args) }),
    ...(native === undefined ? {} : { native }),
    ...(flag(args, 'moved') ? { moved: true } : {}),
    ...(flag(args, 'clone') ? { clone: true } : {}),
  };
}

/** Runs `work` with a connection to the registry, if one is named; REGISTRY_UNAVAILABLE when it cannot be reached. */
async function withRegistry<T>(
  target: Target | undefined,
  work: (executor: SqlExecutor | undefined) => Promise<T>,
): Promise<T> {
  if (target === undefined) return work(undefined);
  const connection = await connect(target, { create: false }).catch((error: unknown) => {
    throw new SheafError(
      'REGISTRY_UNAVAILABLE',
      `cannot reach the registry ${describeTarget(target)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });
  try {
    return await work(connection.executor);
  } finally {
    await connection.close();
  }
}
