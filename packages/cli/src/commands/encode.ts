import { encodeId } from '@sheaf/core';
import { count, flag, layoutOption, required, time } from '../args.js';
import { defineCommand } from '../command.js';
import { toJson } from '../io.js';

export const encodeCommand = defineCommand({
  name: 'encode',
  summary: 'build the id of a time, shard and sequence (no database needed)',
  help: `
Usage: sheaf encode --time <ISO|ms> --shard N --sequence N [--layout <preset>] [--json]

Packs the fields into an id of the layout. A field that does not fit (a shard above the layout's
maximum, a time before its epoch) fails with its SheafError code (exit code 1).

Options:
  --time <ISO|ms>    an ISO 8601 time (2026-01-02T03:04:05.678Z) or unix milliseconds
  --shard N          the shard id
  --sequence N       the sequence number within the millisecond
  --layout <preset>  sheaf, instagram, … (default sheaf)
  --json             print { id, timestamp, ms, shardId, sequence, layout }
  -h, --help         show this help

Example:
  sheaf encode --time 2026-01-02T03:04:05.678Z --shard 7 --sequence 3
`,
  options: {
    time: { type: 'string' },
    shard: { type: 'string' },
    sequence: { type: 'string' },
    layout: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(args, io) {
    const ms = time('time', required(args, 'time'));
    const shardId = count('shard', required(args, 'shard'));
    const sequence = count('sequence', required(args, 'sequence'));
    const layout = layoutOption(args);
    const id = encodeId({ time: ms, shardId, sequence }, layout);
    if (flag(args, 'json')) {
      const timestamp = new Date(ms).toISOString();
      io.out(toJson({ id, timestamp, ms, shardId, sequence, layout: layout.name }));
      return;
    }
    io.out(`${id}\n`);
  },
});
