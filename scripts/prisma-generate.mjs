// Generates the Prisma clients of docs/guides/examples/prisma into test/.generated (gitignored),
// for the tests and the typecheck. Prisma 7's client needs no engine, but the CLI looks for the
// schema engine: any executable stands in for it, since `generate` never starts it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../node_modules/prisma/build/index.js', import.meta.url));
for (const schema of ['schema.postgres.prisma', 'schema.mysql.prisma', 'schema.adopted.prisma']) {
  execFileSync(process.execPath, [cli, 'generate', '--schema', `docs/guides/examples/prisma/${schema}`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
}
