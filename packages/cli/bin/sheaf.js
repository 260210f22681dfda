#!/usr/bin/env node
// The `sheaf` bin. It is a committed file rather than dist/main.js because npm links bins before
// anything is built: in the repository, a bin pointing into dist/ is skipped on `npm ci`, and
// `npx sheaf` then finds nothing to run.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('sheaf: @sheaf/cli is not built (its dist/main.js is missing): run npm run build\n');
  process.exit(1);
}
await import(main.href);
