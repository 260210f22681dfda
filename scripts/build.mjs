#!/usr/bin/env node
// Builds every package into its dist/: embeds the SQL, drops outputs whose source file is gone (tsc
// never deletes them, and `npm pack` would ship them), then `tsc -b`, which skips what is up to date.
// Run by `npm run build`, by the root `prepare` (so `npm ci` builds) and by each package's `prepack`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputs = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

function prune(dist, src) {
  if (!existsSync(dist)) return;
  for (const entry of readdirSync(dist, { withFileTypes: true })) {
    const path = join(dist, entry.name);
    if (entry.isDirectory()) prune(path, join(src, entry.name));
    else if (outputs.test(entry.name) && !existsSync(join(src, entry.name.replace(outputs, '.ts')))) rmSync(path);
  }
}

// A failed step has printed its own errors: exit with its status, without a stack trace.
function run(script, ...args) {
  try {
    execFileSync(process.execPath, [script, ...args], { stdio: 'inherit', cwd: root });
  } catch (error) {
    process.exit(error.status ?? 1);
  }
}

run(join(root, 'scripts/embed-sql.mjs'));
for (const pkg of readdirSync(join(root, 'packages'))) {
  prune(join(root, 'packages', pkg, 'dist'), join(root, 'packages', pkg, 'src'));
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run(tsc, '-b', join(root, 'tsconfig.json'));
