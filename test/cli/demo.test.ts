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
