import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the ORM guides show exactly the example files the integration tests run', () => {
  const script = fileURLToPath(new URL('../../scripts/embed-examples.mjs', import.meta.url));
  expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
});
