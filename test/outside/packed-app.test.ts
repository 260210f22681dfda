// The packages as an app gets them: `npm pack` of every workspace, installed with the real ORMs and
// drivers into a fresh app outside the repository (so nothing resolves from the monorepo's own
// node_modules), then what README.md and the guides tell the app to run. The app's scripts are in
// test/outside/app; the app itself lives in the OS temp dir and is removed afterwards.
import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeId } from '@sheaf/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPostgres, postgresBuildUnavailable } from '../support/postgres-copy.js';
import { createScratchCluster } from '../support/scratch-cluster.js';
import { mysqlUrl, pgUrl, selectedTargets, withDatabase } from '../support/targets.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const targets = selectedTargets();
const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8'));
const { workspaces } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const { version } = JSON.parse(await readFile(join(root, 'packages/core/package.json'), 'utf8'));
const database = `sheaf_outside_${process.pid}_${Date.now().toString(36)}`;
const pgDatabaseUrl = withDatabase(pgUrl, database);
const mysqlDatabaseUrl = withDatabase(mysqlUrl, database);
const nativeBuild = targets.includes('postgres') ? postgresBuildUnavailable() : 'postgres not selected';

/** What the app installs besides the tarballs, at the versions the repository tests against. */
const appDependencies = [
  'pg',
  'mysql2',
  '@prisma/client',
  '@prisma/adapter-pg',
  'prisma',
  'knex',
  'drizzle-orm',
  'tsx',
].map((name) => `${name}@${lock.packages[`node_modules/${name}`].version}`);

/**
 * The environment of a shell in the app: none of the npm settings `npm test` exported for this
 * repository (its prefix, its package) and no repository folder on PATH, the npm cache kept.
 */
function appEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && key.toLowerCase() !== 'npm_config_cache') continue;
    if (['INIT_CWD', 'DATABASE_URL', 'TSX_TSCONFIG_PATH', 'NODE_OPTIONS'].includes(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !`${dir}${sep}`.startsWith(root))
    .join(delimiter);
  return { ...env, ...extra };
}

/** Runs a command, failing with its output; resolves to its stdout. */
function sh(command: string, args: readonly string[], cwd: string, env = appEnv()): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} (in ${cwd}): ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

describe('the packed packages in an app outside the repository', () => {
  let temp: string;
  let app: string;
  /** Runs one of the app's scripts on `url` and parses the JSON it prints. */
  const script = async (file: string, url: string, tsx = false) =>
    JSON.parse(
      await sh(process.execPath, [...(tsx ? ['--import', 'tsx'] : []), file], app, appEnv({ DATABASE_URL: url })),
    );
  const sheaf = (...args: string[]) => sh('npx', ['--no-install', 'sheaf', ...args], app);

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'sheaf-outside-'));
    app = join(await realpath(temp), 'app');
    const tarballs = join(temp, 'tarballs');
    await mkdir(tarballs);
    // Each package's prepack runs the build, which tsc -b skips when dist/ is up to date.
    await sh('npm', ['pack', '--workspaces', '--pack-destination', tarballs], root, appEnv());
    const packed = (await readdir(tarballs)).map((file) => join(tarballs, file));
    expect(packed).toHaveLength(workspaces.length);
    await cp(fileURLToPath(new URL('./app', import.meta.url)), app, { recursive: true });
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'outside-app', private: true, type: 'module' }));
    await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packed, ...appDependencies], app);
    // The CLI looks for the schema engine even to generate, which never starts it (scripts/prisma-generate.mjs).
    const prismaEnv = appEnv({ PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false', PRISMA_HIDE_UPDATE_MESSAGE: '1' });
    await sh('npx', ['--no-install', 'prisma', 'generate'], app, prismaEnv);
  }, 300_000);

  afterAll(async () => {
    if (targets.includes('postgres')) {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`drop database if exists ${database} with (force)`);
      await client.end();
    }
    if (targets.includes('mariadb')) {
      const connection = await mysql.createConnection({ uri: mysqlUrl });
      await connection.query(`drop database if exists ${database}`);
      await connection.query(`drop database if exists sheaf_${database}`);
      await connection.end();
    }
    if (temp) await rm(temp, { recursive: true, force: true });
  }, 60_000);

  it('resolves @sheaf/*, @prisma/client and their peers from the app, not from the repository', async () => {
    const modules = join(app, 'node_modules') + sep;
    const paths: Record<string, string> = JSON.parse(await sh(process.execPath, ['resolve.mjs'], app));
    expect(Object.keys(paths).length).toBeGreaterThan(15);
    for (const [name, path] of Object.entries(paths)) {
      expect(path.startsWith(modules), `${name} resolved to ${path}`).toBe(true);
    }
    for (const name of ['core', 'migrate', 'prisma', 'knex', 'drizzle', 'cli']) {
      expect((await lstat(join(modules, '@sheaf', name))).isSymbolicLink(), `@sheaf/${name} is a link`).toBe(false);
    }
    expect(await realpath(join(modules, '.bin', 'sheaf'))).toBe(join(modules, '@sheaf', 'cli', 'bin', 'sheaf.js'));
    expect((await sheaf('--version')).trim()).toBe(version);
    expect(JSON.parse(await sheaf('decode', '1234567890123', '--json'))).toMatchObject([
      { shardId: 3777, sequence: 203 },
    ]);
  });

  it.skipIf(!targets.includes('postgres'))(
    'npx sheaf install, then Prisma, Knex and Drizzle insert sheaf ids on PostgreSQL',
    async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`create database ${database}`);
      await client.end();
      expect(await sheaf('install', '--url', pgDatabaseUrl, '--shard', '5')).toContain('shard 5, layout sheaf');

      const prisma = await script('prisma.mjs', pgDatabaseUrl, true);
      expect(decodeId(prisma.customer).shardId).toBe(5);
      expect(prisma.orders).toHaveLength(2);
      expect(prisma.workerId).not.toBe(5);
      for (const id of prisma.orders) expect(decodeId(id).shardId).toBe(prisma.workerId);

      const knex = await script('knex.mjs', pgDatabaseUrl);
      expect(knex.stored).toEqual(knex.ids);
      const drizzle = await script('drizzle.mjs', pgDatabaseUrl);
      expect(drizzle.shards).toEqual([5, 5, 5]);

      const ids: string[] = [prisma.customer, ...knex.ids, ...drizzle.ids];
      expect(new Set(ids).size).toBe(7);
      for (const id of ids) expect(decodeId(id).shardId).toBe(5);
      const [decoded] = JSON.parse(await sheaf('decode', knex.ids[0], '--json'));
      expect(decoded).toMatchObject({ id: knex.ids[0], shardId: 5, sequence: decodeId(knex.ids[0]).sequence });
    },
    120_000,
  );

  it.skipIf(!targets.includes('postgres'))(
    'the errors an app meets first are coded: extendKnex(instance), new SnowflakeGenerator, next_id() read-only, a bad sslmode',
    async () => {
      const name = `${database}_errors`;
      const url = withDatabase(pgUrl, name);
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
        await sheaf('install', '--url', url, '--shard', '9');
        const result = await script('errors.mjs', url);
        expect(result.ids).toHaveLength(2);
        for (const id of result.ids) expect(decodeId(id).shardId).toBe(9);
        expect(result.extendConfig).toMatchObject({ code: 'INVALID_ARGUMENT', name: 'SheafError' });
        expect(result.extendConfig.message).toContain('not an object with keys client, connection');
        expect(result.newSnowflake).toMatchObject({ code: 'INVALID_ARGUMENT', name: 'SheafError' });
        expect(result.newSnowflake.message).toContain('await SnowflakeGenerator.start(db, options)');
        for (const readOnly of [result.readOnly, result.readOnlyKnex]) {
          expect(readOnly).toMatchObject({ code: 'READ_ONLY', name: 'SheafError' });
          expect(readOnly.message).toContain('sheaf.next_id() cannot run in a read-only transaction');
          expect(readOnly.message).toContain('ids are made on the primary');
        }
        const refused = await sheaf('status', '--url', `${url}?sslmode=bogus`).then(
          () => '',
          (error: Error) => error.message,
        );
        expect(refused).toContain('sslmode "bogus"');
        expect(refused).toContain('(INVALID_ARGUMENT)');
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
    120_000,
  );

  const nativeTitle =
    'npx sheaf native install builds sheaf_native from the package into a PostgreSQL without it, then install --native runs next_id() in C';
  // On a private copy of the machine's PostgreSQL installation: the shared server's directories hold
  // the build of whatever checkout installed last, which other test runs use.
  (nativeBuild ? it.skip : it)(
    nativeBuild ? `${nativeTitle}: ${nativeBuild}` : nativeTitle,
    async () => {
      const postgres = copyPostgres();
      try {
        const shipped = (await sheaf('native', 'sources')).trim();
        expect(shipped).toBe(join(app, 'node_modules', '@sheaf', 'cli', 'native', 'postgres'));
        // Every source file of native/postgres, none of its build products.
        const tracked = (
          await sh('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'native/postgres'], root)
        )
          .split('\n')
          .map((file) => file.slice('native/postgres/'.length))
          .filter((file) => file !== '' && !file.startsWith('.'));
        expect((await readdir(shipped)).sort()).toEqual(tracked.sort());

        const cluster = await createScratchCluster({ binDir: postgres.binDir });
        try {
          const available = async () => {
            const client = new pg.Client({ connectionString: cluster.url });
            await client.connect();
            try {
              const { rows } = await client.query(
                "select count(*)::int as n from pg_available_extensions where name = 'sheaf_native'",
              );
              return rows[0].n;
            } finally {
              await client.end();
            }
          };
          expect(await available()).toBe(0);
          const report = JSON.parse(await sheaf('native', 'install', '--pg-config', postgres.pgConfig, '--json'));
          expect(report.pgConfig).toBe(postgres.pgConfig);
          for (const file of [report.library, ...report.extensionFiles]) {
            expect(file.startsWith(postgres.root), file).toBe(true);
            expect((await lstat(file)).isFile(), file).toBe(true);
          }
          expect(await available()).toBe(1);

          const url = cluster.urlOf('postgres');
          expect(await sheaf('install', '--url', url, '--shard', '4', '--native')).toContain(
            'next_id() in C (sheaf_native)',
          );
          expect(await sheaf('status', '--url', url)).toContain('C (extension sheaf_native)');
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            const { rows } = await client.query(
              `select sheaf.next_id()::text as id, (select extversion from pg_extension where extname = 'sheaf_native') as native`,
            );
            expect(decodeId(rows[0].id).shardId).toBe(4);
            expect(rows[0].native).toEqual(expect.any(String));
          } finally {
            await client.end();
          }
        } finally {
          cluster.destroy();
        }
      } finally {
        postgres.destroy();
      }
    },
    300_000,
  );

  it.skipIf(!targets.includes('mariadb'))(
    'npx sheaf install, then mysql2 inserts through the sheaf trigger on MariaDB',
    async () => {
      const connection = await mysql.createConnection({ uri: mysqlUrl });
      await connection.query(`create database ${database}`);
      await connection.end();
      expect(await sheaf('install', '--url', mysqlDatabaseUrl, '--shard', '6')).toContain('shard 6, layout sheaf');

      const { ids, stored } = await script('mariadb.mjs', mysqlDatabaseUrl);
      expect(stored).toEqual(ids);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) expect(decodeId(id).shardId).toBe(6);
    },
    120_000,
  );

  it.skipIf(!targets.includes('mariadb'))(
    'npx sheaf migrate --no-auto-increment --apply converts a MariaDB table, then drizzle $returningId() returns the stored ids',
    async () => {
      const converted = `${database}_converted`;
      const url = withDatabase(mysqlUrl, converted);
      const admin = await mysql.createConnection({ uri: mysqlUrl });
      try {
        await admin.query(`create database ${converted}`);
        // The application's table before sheaf, with a row whose id must survive.
        await admin.query(
          `create table ${converted}.orders (id int not null auto_increment primary key, item varchar(40) not null)`,
        );
        await admin.query(`insert into ${converted}.orders (item) values ('before sheaf')`);
        expect(await sheaf('install', '--url', url, '--shard', '8')).toContain('shard 8, layout sheaf');
        expect(await sheaf('migrate', '--url', url, '--table', 'orders', '--no-auto-increment', '--apply')).toContain(
          'dropped AUTO_INCREMENT from 1 keys',
        );

        const { returned, stored, workerId } = await script('drizzle-converted.mjs', url);
        expect(stored.map((row: { item: string }) => row.item)).toEqual(['before sheaf', 'tea', 'rice', 'ink']);
        expect(stored[0].id).toBe('1');
        expect(returned).toEqual(stored.slice(1).map((row: { id: string }) => row.id));
        for (const id of returned) expect(decodeId(id).shardId).toBe(workerId);
      } finally {
        await admin.query(`drop database if exists ${converted}`);
        await admin.query(`drop database if exists sheaf_${converted}`);
        await admin.end();
      }
    },
    120_000,
  );
});
