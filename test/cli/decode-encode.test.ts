import { decodeId, encodeId, type Layout, presets } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { sheaf, sheafJson } from './run-sheaf.js';

interface Decoded {
  id: string;
  timestamp: string;
  ms: number;
  shardId: number;
  sequence: number;
  layout: string;
}

describe('sheaf encode and decode', () => {
  it('round-trips fields through an id, in JSON, on every preset', async () => {
    // Processes in parallel: each one is a Node start-up.
    const roundTrip = async ([name, layout]: [string, Layout]) => {
      const time = '2026-03-04T05:06:07.089Z';
      const fields = { shardId: Math.min(5, layout.maxShard), sequence: Math.min(9, layout.maxSequence) };
      const args = ['--time', time, '--shard', String(fields.shardId), '--sequence', String(fields.sequence)];
      const encoded = await sheafJson<Decoded>(['encode', ...args, '--layout', name]);
      expect(encoded.id).toBe(encodeId({ time: Date.parse(time), ...fields }, layout).toString());
      const [decoded] = await sheafJson<Decoded[]>(['decode', encoded.id, '--layout', name]);
      expect(decoded).toEqual({ ...fields, id: encoded.id, timestamp: time, ms: Date.parse(time), layout: name });
    };
    await Promise.all(Object.entries(presets).map(roundTrip));
  });

  it('takes unix milliseconds and prints the bare id without --json', async () => {
    const run = await sheaf(['encode', '--time', '1767323045678', '--shard', '7', '--sequence', '3']);
    expect(run).toEqual({ code: 0, stdout: '265314246550625283\n', stderr: '' });
  });

  it('decodes several ids into a table, one line each', async () => {
    const ids = ['265314246550625283', '42'];
    const run = await sheaf(['decode', ...ids]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+timestamp\s+shard\s+sequence$/);
    for (const [i, id] of ids.entries()) {
      const { timestamp, shardId, sequence } = decodeId(id);
      expect(lines[i + 1]?.split(/\s+/)).toEqual([id, timestamp.toISOString(), String(shardId), String(sequence)]);
    }
  });

  it('exits 1 with the SheafError message and code when a field does not fit', async () => {
    const shard = await sheaf(['encode', '--time', '2026-01-01T00:00:00Z', '--shard', '5000', '--sequence', '0']);
    expect(shard.code).toBe(1);
    expect(shard.stderr).toBe('sheaf: shard 5000 does not fit 12 shard bits (max 4095) (SHARD_OUT_OF_RANGE)\n');
    const id = await sheaf(['decode', '12a']);
    expect(id.code).toBe(1);
    expect(id.stderr).toMatch(/"12a".*\(INVALID_ID\)\n$/);
    expect(id.stdout).toBe('');
  });

  it('exits 2 on usage errors, naming what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^Usage: sheaf <command>/],
      [
        ['frobnicate'],
        /unknown command "frobnicate"; commands: install, uninstall, status, grant, doctor, repair-counter, decode, encode, migrate, tickets, native, demo/,
      ],
      [['decode'], /missing <id>/],
      [['decode', '1', '--shrad', '3'], /Unknown option '--shrad'/],
      [['decode', '1', '--layout', 'nope'], /--layout "nope" is not a preset; known layouts: sheaf, instagram/],
      [['encode', '--shard', '1', '--sequence', '1'], /missing --time/],
      [
        ['encode', '--time', 'soon', '--shard', '1', '--sequence', '1'],
        /--time must be an ISO 8601 time .* not "soon"/,
      ],
      [['encode', '--time', '0', '--shard', 'x1', '--sequence', '1'], /--shard must be a whole number .* not "x1"/],
      [['encode', '--time', '0', '--shard', '1', '--sequence', '-1'], /--sequence/],
      [['encode', '--time', '0', '--shard', '1', '--sequence', '1', 'extra'], /Unexpected argument 'extra'/],
      [['encode', '--time'], /--time/],
    ];
    const runs = await Promise.all(cases.map(([args]) => sheaf(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const run = runs[i]!;
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(message);
    }
  });

  it('answers --help for every command with exit 0', async () => {
    const top = await sheaf(['--help']);
    expect(top.code).toBe(0);
    const names = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((match) => match[1] as string);
    expect(names).toEqual([
      'install',
      'uninstall',
      'status',
      'grant',
      'doctor',
      'decode',
      'encode',
      'migrate',
      'tickets',
      'native',
      'demo',
    ]);
    const runs = await Promise.all(names.map((name) => sheaf([name, '--help'])));
    for (const [i, name] of names.entries()) {
      const run = runs[i]!;
      expect({ name, code: run.code }).toEqual({ name, code: 0 });
      expect(run.stdout).toMatch(new RegExp(`^Usage: sheaf ${name}`));
    }
    expect((await sheaf(['help', 'encode'])).stdout).toMatch(/^Usage: sheaf encode/);
  });
});
