import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string, file = 'index') =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${file}.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Exact matches: '@sheaf/drizzle' must not swallow '@sheaf/drizzle/pg-core'.
    alias: [
      { find: /^@sheaf\/core$/, replacement: src('core') },
      { find: /^@sheaf\/prisma$/, replacement: src('prisma') },
      { find: /^@sheaf\/knex$/, replacement: src('knex') },
      { find: /^@sheaf\/drizzle$/, replacement: src('drizzle') },
      { find: /^@sheaf\/drizzle\/pg-core$/, replacement: src('drizzle', 'pg-core') },
      { find: /^@sheaf\/drizzle\/mysql-core$/, replacement: src('drizzle', 'mysql-core') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Most of a test waits on a server or a child process: on a 2-core machine the default (one
    // worker per core but one) left a core idle and the run took 21 minutes. 3 workers were no
    // faster than 2 (both cores are busy already) and made timing tests flakier.
    maxWorkers: 2,
    // Every test file runs in a process of its own, which compiles PGlite's WebAssembly anew: V8's
    // optimizing tier then costs more than it saves. Baseline-compiled only, six PGlite-heavy files
    // took 34 s instead of 45 s (the sheaf bin does the same for its commands).
    execArgv: ['--liftoff-only'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
