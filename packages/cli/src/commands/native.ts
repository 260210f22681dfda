import { SheafError } from '@sheaf/core';
import { flag, text } from '../args.js';
import { defineCommand } from '../command.js';
import { toJson } from '../io.js';
import { buildAndInstall } from '../native/build.js';
import { locatePgConfig, readPgConfig } from '../native/pg-config.js';
import { checkPrerequisites, devPackage } from '../native/prerequisites.js';
import { nativeSourceDir } from '../native/sources.js';
import { UsageError } from '../usage-error.js';

/** `sheaf native install` / `sheaf native sources`: the C extension sheaf_native from this package. */
export const nativeCommand = defineCommand({
  name: 'native',
  summary: 'native install: build and install the C extension sheaf_native (next_id() in C) on the database host',
  help: `
Usage: sheaf native install [--pg-config <path>] [--json]
       sheaf native sources

install  Builds the extension sheaf_native, which runs sheaf.next_id() in C, from the sources this
         package ships, against the PostgreSQL installation of <pg_config>, and installs it into
         that server's directories (make && make install, in a temporary directory). Run it once
         per server, on the database host, as root or as the owner of the PostgreSQL
         installation; no database URL. Then, per database: sheaf install --url <url> --native.
         It needs PostgreSQL 14 or later with its server development files (PGXS and headers:
         postgresql-server-dev-<major> on Debian/Ubuntu), GNU make and a C compiler; it names
         what is missing and changes nothing (NATIVE_UNAVAILABLE, exit code 1). Managed servers
         (RDS, Cloud SQL, Azure, Supabase, Neon…) cannot load it: PL/pgSQL serves there.
sources  Prints the directory of the shipped sources, to build them yourself with make.

Options:
  --pg-config <path>  the server's pg_config (default: $PG_CONFIG, else pg_config on PATH,
                      else the newest under /usr/lib/postgresql/*/bin or /usr/pgsql-*/bin)
  --json              print { pgConfig, version, library, extensionFiles }
  -h, --help          show this help

Example:
  sudo npx sheaf native install --pg-config /usr/lib/postgresql/16/bin/pg_config
`,
  options: { 'pg-config': { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run(args, io) {
    const [action, ...extra] = args.positionals;
    if (action !== 'install' && action !== 'sources') {
      throw new UsageError(
        action === undefined
          ? 'missing the action: sheaf native install, or sheaf native sources'
          : `unknown action "${action}"`,
      );
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (action === 'sources') {
      if (text(args, 'pg-config') !== undefined || flag(args, 'json')) {
        throw new UsageError('sheaf native sources takes no options');
      }
      io.out(`${nativeSourceDir()}\n`);
      return;
    }
    const path = locatePgConfig(text(args, 'pg-config'), io.env);
    if (!path) {
      throw new SheafError(
        'NATIVE_UNAVAILABLE',
        'no pg_config found (not on PATH, none under /usr/lib/postgresql/*/bin or /usr/pgsql-*/bin): ' +
          `give --pg-config <path> of the server's installation, or ${devPackage('<major>')}`,
      );
    }
    const config = await readPgConfig(path, io.env);
    const tools = await checkPrerequisites(config, io.env);
    const installed = await buildAndInstall(config, tools, io.env);
    const report = { pgConfig: config.path, version: config.version, ...installed };
    if (flag(args, 'json')) {
      io.out(toJson(report));
      return;
    }
    io.out(
      `sheaf_native built for PostgreSQL ${config.version} (${config.path}) and installed:\n` +
        [installed.library, ...installed.extensionFiles].map((file) => `  ${file}\n`).join('') +
        'Next, on each database of this server: sheaf install --url <url> --native\n',
    );
  },
});
