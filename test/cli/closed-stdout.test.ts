// `sheaf … | head`: the reader goes away while sheaf still writes. The command must run to its end
// (it may be changing a database) with its own exit code, not die of EPIPE with a stack trace.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../packages/cli/bin/sheaf.js', import.meta.url));

it('a reader that closes the pipe early leaves the command to finish with its exit code', async () => {
  // Far more output than a pipe buffers: the writes go on after the reader has gone.
  const ids = Array.from({ length: 20_000 }, (_, i) => String(1_000_000 + i));
  const child = spawn(process.execPath, [bin, 'decode', ...ids], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(stderr).not.toMatch(/EPIPE|Error/);
  expect(code).toBe(0);
});
