#!/usr/bin/env node
// Builds every package into its dist/: embeds the SQL, copies the C sources of sheaf_native into
// @sheaf/cli, drops outputs whose source file is gone (tsc never deletes them, and `npm pack` would
// ship them), then `tsc -b`, which skips what is up to date.
// Run by `npm run build`, by the root `prepare` (so `npm ci` builds) and by each package's `prepack`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

// `sheaf native install` builds sheaf_native from the copy in @sheaf/cli: npm packs nothing from
// outside a package's folder. native/postgres stays the one source; the copy is made anew each time,
// so a file deleted there is not shipped. Build products (what its .gitignore lists) and dot files
// are left out.
function copyNativeSources() {
  const from = join(root, 'native/postgres');
  const to = join(root, 'packages/cli/native/postgres');
  const ignored = readFileSync(join(from, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(
      (glob) =>
        new RegExp(
          `^${glob
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        ),
    );
  const source = (path) => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    return path === from || (!name.startsWith('.') && !ignored.some((glob) => glob.test(name)));
  };
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, filter: source });
}

run(join(root, 'scripts/embed-sql.mjs'));
copyNativeSources();
for (const pkg of readdirSync(join(root, 'packages'))) {
  prune(join(root, 'packages', pkg, 'dist'), join(root, 'packages', pkg, 'src'));
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run(tsc, '-b', join(root, 'tsconfig.json'));
