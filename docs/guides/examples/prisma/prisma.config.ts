// prisma.config.ts of an app whose database sheaf installed and `sheaf migrate` converted
// (docs/guides/prisma.md, "Adopting a database Prisma never managed"); adopt.sh runs beside it.
import { readFileSync } from 'node:fs';
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  datasource: { url: env('DATABASE_URL') },
  migrations: {
    path: 'prisma/migrations',
    // Prisma replays the migrations on a fresh shadow database, where `default sheaf.next_id()`
    // needs sheaf first: its install SQL, written by `sheaf install --print` (adopt.sh).
    initShadowDb: readFileSync('prisma/sheaf.sql', 'utf8'),
  },
  // Prisma 7 takes initShadowDb only with this flag.
  experimental: { externalTables: true },
});
