// Where this app loads each package from, as real paths: test/outside/packed-app.test.ts expects
// every one inside the app's own node_modules, never the sheaf repository's.
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const names = [
  '@sheaf/core',
  '@sheaf/prisma',
  '@sheaf/knex',
  '@sheaf/drizzle',
  '@sheaf/drizzle/pg-core',
  '@sheaf/drizzle/mysql-core',
  '@sheaf/cli/package.json',
  '@prisma/client',
  '@prisma/adapter-pg',
  'pg',
  'mysql2',
  'knex',
  'drizzle-orm',
];
// Dependencies and peers as the packages (and the generated client) see them.
const seenFrom = [
  ['@sheaf/prisma', '@prisma/client/extension'],
  ['@sheaf/prisma', '@sheaf/core'],
  ['@sheaf/knex', 'knex'],
  ['@sheaf/knex', '@sheaf/core'],
  ['@sheaf/drizzle/pg-core', 'drizzle-orm/pg-core'],
  ['@sheaf/drizzle', '@sheaf/core'],
  ['@sheaf/cli/package.json', '@sheaf/core'],
  ['@sheaf/cli/package.json', 'pg'],
  ['./generated/prisma/client.ts', '@prisma/client/runtime/client'],
];

const paths = {};
for (const name of names) paths[name] = realpathSync(fileURLToPath(import.meta.resolve(name)));
for (const [from, name] of seenFrom) {
  paths[`${name} from ${from}`] = realpathSync(createRequire(import.meta.resolve(from)).resolve(name));
}
console.log(JSON.stringify(paths));
