import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeId, SnowflakeGenerator } from '@sheaf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptedClient } from '../../docs/guides/examples/prisma/adopted.js';
import { describeTargets } from '../support/database.js';

// docs/guides/prisma.md, "Where the schema engine cannot be downloaded" and "Adopting a database
// Prisma never managed": a database with serial keys, converted by `sheaf migrate --apply`, then
// baselined by the guide's adopt.sh with the real Prisma CLI in an app folder of its own. The CLI's
// native schema engine cannot be downloaded here; test/support/prisma-schema-engine.mjs stands in
// for it with Prisma's WebAssembly build of the same engine.
const root = fileURLToPath(new URL('../..', import.meta.url));
const examples = join(root, 'docs/guides/examples/prisma');
const standIn = join(root, 'test/support/prisma-schema-engine.mjs');
// The test's own Prisma commands skip npx (adopt.sh keeps it, as an app would run it).
const prismaCli = join(root, 'node_modules/prisma/build/index.js');
const DB_SHARD = 1;

const legacyTables = [
  'create table customers (id serial primary key, email text not null unique)',
  'create table orders (id serial primary key, customer_id integer not null references customers (id), total integer not null)',
  "insert into customers (email) values ('first@example.com'), ('second@example.com')",
  'insert into orders (customer_id, total) values (1, 5), (2, 7)',
];

// What an app's schema.prisma holds before `prisma db pull`: pull keeps these blocks.
const startingSchema = `generator client {
  provider = "prisma-client"
  output   = "../generated"
}

datasource db {
  provider = "postgresql"
}
`;

/** The `model … { … }` blocks of a Prisma schema. */
const models = (schema: string) => schema.match(/^model \w+ \{[\s\S]*?^\}/gm) ?? [];

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const execute = promisify(execFile);

/** Runs a command in `cwd`; resolves with its exit code and output, also when it fails. */
async function attempt(cwd: string, env: NodeJS.ProcessEnv, command: string, args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await execute(command, args, { cwd, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Like {@link attempt}, and rejects with the output when the command fails. */
async function succeed(cwd: string, env: NodeJS.ProcessEnv, command: string, args: string[]): Promise<Ran> {
  const ran = await attempt(cwd, env, command, args);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** A fresh app folder in test/.generated (gitignored), so that npx and prisma/config resolve from the repository. */
async function newApp(): Promise<string> {
  await mkdir(join(root, 'test/.generated'), { recursive: true });
  const app = await mkdtemp(join(root, 'test/.generated/prisma-app-'));
  await mkdir(join(app, 'prisma'));
  await writeFile(join(app, 'prisma/schema.prisma'), startingSchema);
  return app;
}

describe('docs/guides/prisma.md: the Prisma CLI with PRISMA_SCHEMA_ENGINE_BINARY=/bin/false', () => {
  let app: string;
  beforeAll(async () => {
    app = await newApp();
    await writeFile(join(app, 'prisma.config.ts'), await readFile(join(examples, 'prisma.config.ts'), 'utf8'));
    await writeFile(join(app, 'prisma/sheaf.sql'), '');
  });
  afterAll(async () => {
    await rm(app, { recursive: true, force: true });
  });
  const env = {
    PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none',
  };

  it('validate and generate run (they never start the engine); migrate status fails at its connection check; db pull does nothing', async () => {
    await succeed(app, env, process.execPath, [prismaCli, 'validate']);
    await succeed(app, env, process.execPath, [prismaCli, 'generate']);
    expect(await readdir(join(app, 'generated'))).toContain('client.ts');

    const status = await attempt(app, env, process.execPath, [prismaCli, 'migrate', 'status']);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('Error: Schema engine exited. Error: Command failed with exit code 1: /bin/false');

    // Usually "Error in Schema engine" and exit 1; when /bin/false exits before the CLI sends its
    // request, Prisma 7.10 exits 0 without a word. Either way nothing is written.
    const pull = await attempt(app, env, process.execPath, [prismaCli, 'db', 'pull']);
    if (pull.code !== 0) expect(pull.stderr).toContain('Error: Error in Schema engine:');
    expect(await readFile(join(app, 'prisma/schema.prisma'), 'utf8')).toBe(startingSchema);
  }, 120_000);
});

describeTargets(
  'docs/guides/prisma.md: adopting a database that sheaf migrate converted',
  (db) => {
    let app: string;
    const env = () => ({
      DATABASE_URL: db().url!,
      PRISMA_SCHEMA_ENGINE_BINARY: standIn,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    });
    const prisma = (...args: string[]) => succeed(app, env(), process.execPath, [prismaCli, ...args]);
    const sheafCli = (...args: string[]) =>
      succeed(root, {}, process.execPath, [join(root, 'packages/cli/bin/sheaf.js'), ...args, '--url', db().url!]);
    const sheafRoutines = async () =>
      (
        await db().executor.query<{ count: string }>(
          "select count(*)::text as count from pg_proc where pronamespace = 'sheaf'::regnamespace",
        )
      )[0]!.count;

    beforeAll(async () => {
      for (const statement of legacyTables) await db().executor.query(statement);
      await sheafCli('install', '--shard', String(DB_SHARD));
      await sheafCli('migrate', '--all', '--apply');
      app = await newApp();
      await writeFile(join(app, 'prisma.config.ts'), await readFile(join(examples, 'prisma.config.ts'), 'utf8'));
    }, 60_000);
    afterAll(async () => {
      await rm(app, { recursive: true, force: true });
    });

    it('adopt.sh: db pull writes the documented models, 0_init creates the tables with their sheaf defaults and nothing of sheaf, and Prisma records it as applied', async () => {
      await succeed(app, env(), 'bash', [join(examples, 'adopt.sh')]);

      const pulled = await readFile(join(app, 'prisma/schema.prisma'), 'utf8');
      expect(models(pulled)).toEqual(models(await readFile(join(examples, 'schema.adopted.prisma'), 'utf8')));
      expect(models(pulled)).toHaveLength(2);

      const baseline = await readFile(join(app, 'prisma/migrations/0_init/migration.sql'), 'utf8');
      expect(baseline.match(/"id" BIGINT NOT NULL DEFAULT sheaf\.next_id\(\)/g)).toHaveLength(2);
      expect(baseline).toContain('CREATE TABLE "customers"');
      expect(baseline).toContain('CREATE TABLE "orders"');
      expect(baseline).not.toMatch(/create (schema|table|function|sequence)\s+"?sheaf/i);

      const recorded = await db().executor.query<Record<string, unknown>>(
        'select migration_name, checksum, finished_at is not null as finished, rolled_back_at, applied_steps_count from _prisma_migrations',
      );
      expect(recorded).toEqual([
        {
          migration_name: '0_init',
          checksum: createHash('sha256').update(baseline).digest('hex'),
          finished: true,
          rolled_back_at: null,
          applied_steps_count: 0,
        },
      ]);
      expect((await prisma('migrate', 'status')).stdout).toContain('Database schema is up to date!');
    }, 180_000);

    it('prisma migrate dev then finds nothing to change and leaves schema sheaf alone; without initShadowDb the shadow database refuses 0_init (P3006, schema "sheaf" does not exist)', async () => {
      const routines = await sheafRoutines();
      await prisma('migrate', 'dev', '--name', 'after_adoption', '--create-only');
      const created = (await readdir(join(app, 'prisma/migrations'))).filter((name) =>
        name.endsWith('_after_adoption'),
      );
      expect(created).toHaveLength(1);
      const next = await readFile(join(app, 'prisma/migrations', created[0]!, 'migration.sql'), 'utf8');
      expect(next.trim()).toBe('-- This is an empty migration.');
      await rm(join(app, 'prisma/migrations', created[0]!), { recursive: true });
      expect(await sheafRoutines()).toBe(routines);

      const plain =
        "import { defineConfig, env } from 'prisma/config';\n\nexport default defineConfig({ schema: 'prisma/schema.prisma', datasource: { url: env('DATABASE_URL') } });\n";
      await writeFile(join(app, 'plain.config.ts'), plain);
      const refused = await attempt(app, env(), process.execPath, [
        ...[prismaCli, 'migrate', 'dev', '--name', 'x', '--create-only', '--config', 'plain.config.ts'],
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain('P3006');
      expect(refused.stdout + refused.stderr).toContain('schema "sheaf" does not exist');
      expect(await sheafRoutines()).toBe(routines);
    }, 180_000);

    it('@sheaf/prisma then inserts rows keyed by sheaf (customers by the column default, orders by a SnowflakeGenerator); the old rows keep their ids', async () => {
      const snowflake = await SnowflakeGenerator.start(db().executor);
      const client = adoptedClient(db().url!, snowflake);
      try {
        const customer = await client.customers.create({
          data: { email: 'new@example.com', orders: { create: [{ total: 3 }, { total: 4 }] } },
          include: { orders: true },
        });
        expect(decodeId(customer.id).shardId).toBe(DB_SHARD);
        expect(customer.orders.map((order) => decodeId(order.id).shardId)).toEqual([
          snowflake.workerId,
          snowflake.workerId,
        ]);
        const old = await client.customers.findMany({ where: { id: { lt: 100n } }, orderBy: { id: 'asc' } });
        expect(old.map((row) => [row.id, row.email])).toEqual([
          [1n, 'first@example.com'],
          [2n, 'second@example.com'],
        ]);
      } finally {
        await client.$disconnect();
        await snowflake.close();
      }
    }, 60_000);

    it('prisma migrate reset drops and re-creates schema public only: schema sheaf and its shard stay, and 0_init applies again', async () => {
      const routines = await sheafRoutines();
      await prisma('migrate', 'reset', '--force');
      expect(await db().executor.query('select * from customers')).toEqual([]);
      expect(await sheafRoutines()).toBe(routines);
      const [row] = await db().executor.query<{ id: string }>(
        "insert into customers (email) values ('after-reset@example.com') returning id::text as id",
      );
      expect(decodeId(row!.id).shardId).toBe(DB_SHARD);
    }, 120_000);
  },
  { only: ['postgres'] },
);

describe('docs/guides/prisma.md: adopting a MariaDB database', () => {
  it.skip('not run: Prisma 7 migrates only through its native schema engine, which cannot be downloaded here, and its WebAssembly build has no MySQL connector ("Unsupported adapter provider: Mysql")', () => {});
});
