import { decodeId } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { sheaf } from './run-sheaf.js';

describe('sheaf demo', () => {
  it('runs the README demo on embedded PGlite', async () => {
    const run = await sheaf(['demo']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^sheaf demo on embedded PGlite \(PostgreSQL /);
    expect(run.stdout).toContain('sheaf.decode_id (SQL) and decodeId (TypeScript) agree on every row.');
    expect(run.stdout).toMatch(/^3006 rows, 3006 distinct ids over \d+ milliseconds$/m);
  });
});

describe('sheaf demo --json', () => {
  it('prints the decoded rows and counts as JSON, ids as strings', async () => {
    const run = await sheaf(['demo', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ shard: 42, total: 3006, distinctIds: 3006, lastMinute: 3006 });
    expect(result.rows.map((row: { item: string }) => row.item)).toEqual([
      'tea',
      'rice',
      'paper',
      'ink',
      'brush',
      'silk',
    ]);
    for (const row of result.rows) {
      expect(row.id).toMatch(/^\d+$/);
      expect(decodeId(row.id)).toMatchObject({ shardId: 42, sequence: row.sequence });
      expect(decodeId(row.id).timestamp.toISOString()).toBe(row.createdAt);
    }
  });
});
