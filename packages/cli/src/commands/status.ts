import { SheafError, sqlVersion } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, type Target, targetOf, targetUrl, urlHelp, urlOption, withConnection } from '../connection.js';
import { type GaleraReading, ownBinding, readGalera } from '../doctor/galera-reading.js';
import { isUnreadable, readable } from '../doctor/probe.js';
import { type InstalledState, readInstallation } from '../installed-state.js';
import { toJson } from '../io.js';
import { statusFindings } from '../status-findings.js';

// The line each finding is printed on, as wide as the others' names.
const findingLines: Record<string, string> = {
  state: 'damaged',
  'node identity': 'copy',
  replication: 'warning',
  galera: 'warning',
};

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'show the installed version, shard, layout, whether ids were issued and how next_id() runs',
  help: `
Usage: sheaf status [--url <url>] [--json]

Shows the sheaf SQL version installed against this package's, the shard, the layout and the last
instant it can encode, whether the generator has issued ids (after which the layout is fixed) and,
on PostgreSQL, whether next_id() runs in C (the extension sheaf_native) or in PL/pgSQL, and on a
Galera node its name and the shard it issues. Then a line for each problem found: state the
generator needs and lacks (damaged), a copy of another database (copy, PostgreSQL), schema sheaf in
a publication or pglogical replication set (warning, PostgreSQL) and Galera nodes that do not each
issue a shard of their own (warning).
Exit code 0 when sheaf is installed, 1 when it is not (NOT_INSTALLED), is damaged (STATE_DAMAGED)
or is a copy (DATABASE_COPIED): the status is printed either way.

Options:
${urlHelp}
  --json             print the status as JSON
  -h, --help         show this help
`,
  options: { ...urlOption, json: { type: 'boolean' } },
  async run(args, io) {
    const target = targetOf(args, io);
    const { installation, galera, findings } = await withConnection(target, { create: false }, async (executor) => {
      const installation = await readInstallation(executor);
      if (!installation) return { installation, galera: undefined, findings: [] };
      const galera = await readable(() => readGalera(executor, installation.version));
      return { installation, galera, findings: await statusFindings(executor, target, installation, galera) };
    });
    const node = galera === undefined || isUnreadable(galera) ? undefined : galera;
    const packageVersion = sqlVersion(target.dialect);
    const state = installation?.state;
    const json = flag(args, 'json');
    if (!installation) {
      const where = describeTarget(target);
      if (json) io.out(toJson({ dialect: target.dialect, installed: false, packageVersion }));
      else io.out(`sheaf is not installed on ${where} (this package installs SQL version ${packageVersion})\n`);
      // Exit 1 once the status is out, so that scripts can test for an install by the exit code.
      throw new SheafError('NOT_INSTALLED', `sheaf is not installed on ${where}; run \`sheaf install\``, {
        details: { packageVersion },
      });
    }
    const { version } = installation;
    if (json) {
      io.out(
        toJson({
          dialect: target.dialect,
          installed: true,
          version,
          ...state,
          packageVersion,
          upToDate: version === packageVersion,
          ...(state ? { runsOut: runsOut(state) } : {}),
          ...(node ? { galera: galeraJson(node, state) } : {}),
          findings: findings.map(({ name, status, message, code }) => ({ name, status, message, code })),
        }),
      );
    } else {
      const rows = [
        ['database', describeTarget(target)],
        ['sql version', `${version} (${versionNote(version, packageVersion)})`],
        ...(state ? stateRows(state, target.dialect === 'postgres', node) : []),
        ...(node ? [['galera node', galeraLine(node, state, target)]] : []),
        ...findings.map((found) => [findingLines[found.name] ?? found.name, found.message]),
      ];
      io.out(rows.map(([name, value]) => `${name?.padEnd(12)} ${value}\n`).join(''));
    }
    const failed = findings.find((found) => found.status === 'fail');
    if (failed?.code) throw new SheafError(failed.code, failed.message);
  },
});

function versionNote(version: number, packageVersion: number): string {
  return version === packageVersion ? 'up to date' : `this package has ${packageVersion}: run sheaf install`;
}

function stateRows(state: InstalledState, postgres: boolean, galera: GaleraReading | undefined): string[][] {
  const { layout } = state;
  const configured = galera?.bindings ? ' (configured; this Galera node issues its own, below)' : '';
  return [
    ['shard', `${state.shard}${configured}`],
    [
      'layout',
      `${layout.name}: ${layout.timeBits} time, ${layout.shardBits} shard, ${layout.sequenceBits} sequence bits`,
    ],
    ['epoch', new Date(layout.epoch).toISOString()],
    ['runs out', runsOut(state)],
    ['ids issued', state.idsIssued ? 'yes (the layout is fixed)' : 'no'],
    ...(postgres ? [['next_id()', pathOf(state)]] : []),
  ];
}

// The shard ids issued here carry: the node's own from SQL version 15, the configured one before.
function galeraLine(galera: GaleraReading, state: InstalledState | undefined, target: Target): string {
  if (galera.bindings === undefined) {
    return `${galera.node}: issues the configured shard${state ? ` ${state.shard}` : ''}, as every node does`;
  }
  const own = ownBinding(galera);
  if (own) return `${galera.node}: shard ${own.shard}`;
  return (
    `${galera.node}: no shard of its own, so it issues no ids (NODE_UNBOUND); ` +
    `sheaf install --url ${targetUrl(target)} --shard <N> gives it one`
  );
}

function galeraJson(galera: GaleraReading, state: InstalledState | undefined) {
  const shard = galera.bindings === undefined ? state?.shard : ownBinding(galera)?.shard;
  return { node: galera.node, cluster: galera.clusterUuid, shard: shard ?? null };
}

function pathOf({ native, nativeAvailable }: InstalledState): string {
  if (native) return 'C (extension sheaf_native)';
  return nativeAvailable ? 'PL/pgSQL (sheaf_native is available: sheaf install --native)' : 'PL/pgSQL';
}

/** The last instant the layout can encode: its time field's maximum, capped so ids stay below 2^63. */
function runsOut({ layout }: InstalledState): string {
  const lowBits = BigInt(layout.shardBits + layout.sequenceBits);
  const byTimeBits = (1n << BigInt(layout.timeBits)) - 1n;
  const bySign = ((1n << 63n) - 1n) >> lowBits;
  const maxTick = byTimeBits < bySign ? byTimeBits : bySign;
  const last = layout.epoch + Number(maxTick);
  // Beyond what a Date can hold (year 275760): for any purpose, never.
  return last <= 8.64e15 ? new Date(last).toISOString() : 'after +275760-09-13';
}
