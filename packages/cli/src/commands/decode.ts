import { decodeId, parseId } from '@sheaf/core';
import { flag, layoutOption } from '../args.js';
import { defineCommand } from '../command.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const decodeCommand = defineCommand({
  name: 'decode',
  summary: 'show the time, shard and sequence inside ids (no database needed)',
  help: `
Usage: sheaf decode <id…> [--layout <preset>] [--json]

Decodes each id with the layout: the instant it was issued, its shard and its sequence number.
An id that is not a whole number, or lies outside the layout, fails with INVALID_ID or
ID_OUT_OF_RANGE (exit code 1).

Options:
  --layout <preset>  sheaf, instagram, … (default sheaf)
  --json             print an array of { id, timestamp, ms, shardId, sequence, layout }
  -h, --help         show this help

Example:
  sheaf decode 1234567890123456789 --json
`,
  options: { layout: { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run(args, io) {
    if (args.positionals.length === 0) throw new UsageError('missing <id>: give one or more ids to decode');
    const layout = layoutOption(args);
    const decoded = args.positionals.map((raw) => {
      const { timestamp, ms, shardId, sequence } = decodeId(raw, layout);
      return {
        id: parseId(raw, layout).toString(),
        timestamp: timestamp.toISOString(),
        ms,
        shardId,
        sequence,
        layout: layout.name,
      };
    });
    if (flag(args, 'json')) {
      io.out(toJson(decoded));
      return;
    }
    const header = ['id'.padEnd(20), 'timestamp'.padEnd(24), 'shard'.padEnd(5), 'sequence'];
    const lines = decoded.map((row) =>
      [row.id.padEnd(20), row.timestamp.padEnd(24), String(row.shardId).padEnd(5), String(row.sequence)].join('  '),
    );
    io.out(`${[header.join('  '), ...lines].join('\n')}\n`);
  },
});
