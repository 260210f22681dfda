#!/usr/bin/env node
// The `sheaf` bin. It is a committed file rather than dist/main.js because npm links bins before
// anything is built: in the repository, a bin pointing into dist/ is skipped on `npm ci`, and
// `npx sheaf` then finds nothing to run.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('sheaf: @sheaf/cli is not built (its dist/main.js is missing): run npm run build\n');
  process.exit(1);
}
// A `pglite:` URL runs PostgreSQL compiled to WebAssembly in this process, which lives for seconds:
// V8's optimizing tier would compile more of the module than the command ever runs. Its baseline
// compiler alone halves the CPU time of `sheaf status` on PGlite (2.4 to 1.1 s) and of the demo
// (9.2 to 5.6 s); JavaScript is unaffected. Set before anything compiles WebAssembly.
setFlagsFromString('--liftoff-only');
await import(main.href);
