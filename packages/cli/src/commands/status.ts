import { SheafError, sqlVersion } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { type InstalledState, readInstalledState } from '../installed-state.js';
import { toJson } from '../io.js';

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'show the installed version, shard, layout, whether ids were issued and how next_id() runs',
  help: `
Usage: sheaf status [--url <url>] [--json]

Shows the sheaf SQL version installed against this package's, the shard, the layout and the last
instant it can encode, whether the generator has issued ids (after which the layout is fixed) and,
on PostgreSQL, whether next_id() runs in C (the extension sheaf_native) or in PL/pgSQL.
Exit code 0 when sheaf is installed, 1 (NOT_INSTALLED) when it is not: the status is printed
either way.

Options:
${urlHelp}
  --json             print the status as JSON
  -h, --help         show this help
`,
  options: { ...urlOption, json: { type: 'boolean' } },
  async run(args, io) {
    const target = targetOf(args, io);
    const state = await withConnection(target, { create: false }, readInstalledState);
    const packageVersion = sqlVersion(target.dialect);
    const report = state
      ? {
          installed: true,
          ...state,
          packageVersion,
          upToDate: state.version === packageVersion,
          runsOut: runsOut(state),
        }
      : { installed: false, packageVersion };
    const json = flag(args, 'json');
    if (json) io.out(toJson({ dialect: target.dialect, ...report }));
    if (!state) {
      const where = describeTarget(target);
      if (!json) io.out(`sheaf is not installed on ${where} (this package installs SQL version ${packageVersion})\n`);
      // Exit 1 once the status is out, so that scripts can test for an install by the exit code.
      throw new SheafError('NOT_INSTALLED', `sheaf is not installed on ${where}; run \`sheaf install\``, {
        details: { packageVersion },
      });
    }
    if (json) return;
    const { layout } = state;
    const versionNote =
      state.version === packageVersion ? 'up to date' : `this package has ${packageVersion}: run sheaf install`;
    const rows = [
      ['database', describeTarget(target)],
      ['sql version', `${state.version} (${versionNote})`],
      ['shard', String(state.shard)],
      [
        'layout',
        `${layout.name}: ${layout.timeBits} time, ${layout.shardBits} shard, ${layout.sequenceBits} sequence bits`,
      ],
      ['epoch', new Date(layout.epoch).toISOString()],
      ['runs out', runsOut(state)],
      ['ids issued', state.idsIssued ? 'yes (the layout is fixed)' : 'no'],
      ...(target.dialect === 'postgres' ? [['next_id()', pathOf(state)]] : []),
    ];
    io.out(rows.map(([name, value]) => `${name?.padEnd(12)} ${value}\n`).join(''));
  },
});

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
