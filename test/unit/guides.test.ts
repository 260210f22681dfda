import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the guides and docs/generators.md show exactly the example files the tests run', () => {
  const script = fileURLToPath(new URL('../../scripts/embed-examples.mjs', import.meta.url));
  expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
});
