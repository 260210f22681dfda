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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
